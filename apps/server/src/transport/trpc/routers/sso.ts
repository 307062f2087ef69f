import { AuthResponseSchema, OidcCallbackInput, OidcExchangeInput, RedirectSchema } from '@tasklane/schemas';
import { z } from 'zod';
import { DomainError } from '../../../platform/errors';
import { attemptProcedure, publicProcedure, router } from '../init';

const tags = ['auth'];

/** A browser's navigation asks for HTML; an API client for JSON. */
const isBrowser = (accept: string | undefined) => accept?.includes('text/html') ?? false;

/** `auth.oidc`: single sign-on with the configured OpenID provider. */
export const ssoRouter = router({
  login: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/oidc/login',
        tags,
        protect: false,
        summary: 'Sign in with the OpenID provider',
        description: 'Redirects (302) to the provider, with a cookie that the callback checks. 404 OIDC_DISABLED when single sign-on is not configured; 503 OIDC_UNAVAILABLE when the provider cannot be reached.',
        successDescription: 'Redirect to the provider',
      },
      successStatus: 302,
      headers: ['Location'],
      errors: [404],
    })
    .input(z.object({}).strict().optional())
    .output(RedirectSchema)
    .query(async ({ ctx }) => {
      const { location, setCookie } = await ctx.services.sso.start();
      ctx.response.status = 302;
      Object.assign(ctx.response.headers, { location, 'set-cookie': setCookie, 'cache-control': 'no-store' });
      return { location };
    }),

  callback: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/oidc/callback',
        tags,
        protect: false,
        summary: 'Return from the OpenID provider',
        description:
          'Where the provider sends the browser back. An API client (Accept: application/json) gets the token of a new session, as from login. A browser is redirected (303) to the web app with a single-use code for POST /auth/oidc/exchange, or with the reason of a refusal. Refusals: 400 OIDC_STATE_MISMATCH (not started in this browser, or over 10 minutes ago), 400 OIDC_CODE_REJECTED (the provider refused the code, e.g. used twice), 403 OIDC_DENIED, 403 OIDC_SIGNUP_DISABLED (no account has the email and OIDC_AUTO_CREATE is off), 409 EMAIL_NOT_VERIFIED (an account has the email, and the provider does not say it is verified), 409 OIDC_EMAIL_MISSING.',
      },
      redirect: { status: 303, description: 'A browser: on to the web app' },
      errors: [403, 404, 409],
    })
    .input(OidcCallbackInput)
    .output(z.union([AuthResponseSchema, RedirectSchema]))
    .query(async ({ ctx }) => {
      ctx.response.headers['set-cookie'] = ctx.services.sso.clearFlow();
      ctx.response.headers['cache-control'] = 'no-store';
      const search = ctx.url.includes('?') ? ctx.url.slice(ctx.url.indexOf('?')) : '';
      if (!isBrowser(ctx.accept)) {
        const account = await ctx.services.sso.finish(search, ctx.cookie);
        return ctx.services.auth.startSession(account, 'oidc', ctx.client);
      }
      let fragment: string;
      try {
        fragment = `sso=${await ctx.services.sso.handOff((await ctx.services.sso.finish(search, ctx.cookie)).id)}`;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        fragment = `sso_error=${error.reason ?? error.code}`;
      }
      const location = `${ctx.services.publicUrl}/login#${fragment}`;
      ctx.response.status = 303;
      ctx.response.headers.location = location;
      return { location };
    }),

  exchange: attemptProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/oidc/exchange',
        tags,
        protect: false,
        summary: 'Finish a sign-on in the web app',
        description: 'Exchanges the single-use `sso` code of the callback’s redirect (valid 2 minutes) for the token of a new session, as from login. 400 INVALID_SSO_CODE for a code that is wrong, used or expired.',
      },
      errors: [404, 429],
    })
    .input(OidcExchangeInput)
    .output(AuthResponseSchema)
    .mutation(({ ctx, input }) => ctx.services.sso.exchange(input.code, ctx.client)),
});
