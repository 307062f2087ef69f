import { AuthResponseSchema, LoginInput, MessageSchema, RegisterInput, UpdateMeInput, UserSchema } from '@tasklane/schemas';
import { z } from 'zod';
import { protectedProcedure, publicProcedure, router } from '../trpc/init';

const tags = ['auth'];

export const authRouter = router({
  register: publicProcedure
    .meta({
      openapi: { method: 'POST', path: '/auth/register', tags, protect: false, summary: 'Create a user', description: 'Registers a user and returns a token for later requests.' },
      successStatus: 201,
      errors: [409, 429],
    })
    .input(RegisterInput)
    .output(AuthResponseSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.register(input)),

  login: publicProcedure
    .meta({
      openapi: { method: 'POST', path: '/auth/login', tags, protect: false, summary: 'Log in', description: 'Exchanges email and password for a token. Wrong email and wrong password get the same 401.' },
      errors: [401, 429],
    })
    .input(LoginInput)
    .output(AuthResponseSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.login(input)),

  me: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/me', tags, summary: 'The current user', description: "The token's user." } })
    .input(z.object({}).strict().optional())
    .output(UserSchema)
    .query(({ ctx }) => ctx.services.auth.me(ctx.userId)),

  updateMe: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/auth/me', tags, summary: 'Update my account', description: 'Name; email and password need `currentPassword` (403 INVALID_CURRENT_PASSWORD when wrong). A new password revokes every token issued before it, this one included: log in again.' },
      errors: [403, 409],
    })
    .input(UpdateMeInput)
    .output(UserSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.updateMe(ctx.userId, input)),

  logout: protectedProcedure
    .meta({ openapi: { method: 'POST', path: '/auth/logout', tags, summary: 'Log out', description: 'Revokes the presented token on every instance; later requests with it get 401. Send an empty JSON object.' } })
    .input(z.object({}).strict().meta({ examples: [{}] }).optional())
    .output(MessageSchema)
    .mutation(({ ctx }) => ctx.services.auth.logout(ctx.userId, ctx.token)),
});
