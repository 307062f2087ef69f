import {
  AuthProvidersSchema,
  AuthResponseSchema,
  ListSessionsInput,
  LoginInput,
  MessageSchema,
  PasswordResetConfirmInput,
  PasswordResetInput,
  PathIdInput,
  RegisterInput,
  SessionSchema,
  UpdateMeInput,
  MeSchema,
} from '@tasklane/schemas';
import { z } from 'zod';
import { attemptProcedure, protectedProcedure, publicProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['auth'];

export const authRouter = router({
  register: attemptProcedure
    .meta({
      openapi: { method: 'POST', path: '/auth/register', tags, protect: false, summary: 'Create a user', description: 'Registers a user and returns a token for later requests (a new session). 403 PASSWORD_LOGIN_DISABLED when the server allows single sign-on only.' },
      successStatus: 201,
      location: '/auth/me',
      errors: [403, 409, 429],
    })
    .input(RegisterInput)
    .output(AuthResponseSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.register(input, ctx.client)),

  login: attemptProcedure
    .meta({
      openapi: { method: 'POST', path: '/auth/login', tags, protect: false, summary: 'Log in', description: 'Exchanges email and password for a token of a new session. Wrong email and wrong password get the same 401. 403 PASSWORD_LOGIN_DISABLED when the server allows single sign-on only.' },
      errors: [401, 403, 429],
    })
    .input(LoginInput)
    .output(AuthResponseSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.login(input, ctx.client)),

  me: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/me', tags, summary: 'The current user', description: "The token's user." } })
    .input(z.object({}).strict().optional())
    .output(MeSchema)
    .query(({ ctx }) => ctx.services.auth.me(ctx.userId)),

  updateMe: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/auth/me', tags, summary: 'Update my account', description: 'Name and language (`locale`, which the web app and emails speak); email and password need `currentPassword` (403 INVALID_CURRENT_PASSWORD when wrong). A new password signs every session out, this one included (log in again), and ends earlier reset links; personal access tokens keep working.' },
      errors: [403, 409],
    })
    .input(UpdateMeInput)
    .output(MeSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.updateMe(ctx.userId, input)),

  logout: protectedProcedure
    .meta({ openapi: { method: 'POST', path: '/auth/logout', tags, summary: 'Log out', description: "Signs the presented token's session out on every instance; later requests with it get 401. Send no body (or an empty JSON object)." } })
    .input(z.object({}).strict().meta({ examples: [{}] }).optional())
    .output(MessageSchema)
    .mutation(({ ctx }) => ctx.services.auth.logout(ctx.userId, ctx.token)),

  providers: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/providers', tags, protect: false, summary: 'Ways to sign in', description: 'Whether password sign-in and "forgot password" are on, and the single sign-on button, if configured.' } })
    .input(z.object({}).strict().optional())
    .output(AuthProvidersSchema)
    .query(({ ctx }) => ctx.services.providers),

  requestPasswordReset: attemptProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/password-reset',
        tags,
        protect: false,
        summary: 'Forgot password',
        description: 'Always 202, whether or not an account has the email (and in the same time): when it has one and the server sends email, a single-use link valid 30 minutes is emailed. Rate-limited like login.',
        successDescription: 'Accepted',
      },
      successStatus: 202,
      errors: [403, 429],
    })
    .input(PasswordResetInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => {
      ctx.response.status = 202;
      return ctx.services.passwordReset.request(input.email);
    }),

  confirmPasswordReset: attemptProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/password-reset/confirm',
        tags,
        protect: false,
        summary: 'Set a new password with a reset link',
        description: 'The `token` of the emailed link and the new password: the password is set, every session of the account is signed out and every other link ends (personal access tokens stay). 400 INVALID_RESET_TOKEN for a link that is wrong, used, older than 30 minutes or ended by a newer password. Rate-limited like login.',
      },
      errors: [403, 429],
    })
    .input(PasswordResetConfirmInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.passwordReset.confirm(input.token, input.password)),

  sessions: router({
    ...pagedList('list', {
      meta: {
        openapi: { method: 'GET', path: '/auth/sessions', tags, summary: 'My sessions', description: 'Signed-in sessions of the caller, newest first, paged by cursor: when each began and was last used, its user agent and address. Needs a login token (not a personal access token).' },
        errors: [403],
      },
      input: ListSessionsInput.optional(),
      item: SessionSchema,
      list: (ctx, input) => ctx.services.auth.listSessions(ctx.userId, ctx.token.sessionId, input ?? {}),
    }),

    revoke: protectedProcedure
      .meta({
        openapi: { method: 'DELETE', path: '/auth/sessions/{id}', tags, summary: 'Sign a session out', description: 'Its token gets 401 from then on, on every instance. Needs a login token.' },
        errors: [403],
      })
      .input(PathIdInput)
      .output(MessageSchema)
      .mutation(({ ctx, input }) => ctx.services.auth.revokeSession(ctx.userId, input.id)),

    revokeOthers: protectedProcedure
      .meta({
        openapi: { method: 'POST', path: '/auth/sessions/sign-out-others', tags, summary: 'Sign out everywhere else', description: 'Signs every session of the caller out but the one of this request. Needs a login token. Send no body (or an empty JSON object).' },
        errors: [403],
      })
      .input(z.object({}).strict().meta({ examples: [{}] }).optional())
      .output(MessageSchema)
      .mutation(({ ctx }) => ctx.services.auth.revokeOtherSessions(ctx.userId, ctx.token.sessionId)),
  }),
});
