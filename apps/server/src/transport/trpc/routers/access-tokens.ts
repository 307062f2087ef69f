import { AccessTokenSchema, CreateAccessTokenInput, CreatedAccessTokenSchema, ListAccessTokensInput, MessageSchema, PathIdInput } from '@tasklane/schemas';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['auth'];
const sessionOnly = 'Needs a login token: a personal access token cannot manage tokens.';

/** `auth.tokens`: personal access tokens for scripts, managed from a signed-in session. */
export const accessTokensRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/tokens',
        tags,
        summary: 'Create a personal access token',
        description: `Returns the token once (\`tl_pat_…\`, for \`Authorization: Bearer\`); only a digest is kept. Scopes: \`read\` (reading only), \`write\` (plus task and comment writes), \`admin\` (everything you may do). \`projectIds\` limits it to those projects (others answer 404); it never does more than you may at the moment of use. ${sessionOnly}`,
      },
      successStatus: 201,
      location: '/auth/tokens/{id}',
      errors: [403],
    })
    .input(CreateAccessTokenInput)
    .output(CreatedAccessTokenSchema)
    .mutation(({ ctx, input }) => ctx.services.accessTokens.create(ctx.userId, input)),

  ...pagedList('list', {
    meta: {
      openapi: { method: 'GET', path: '/auth/tokens', tags, summary: 'My personal access tokens', description: `Newest first, paged by cursor; never the secret. ${sessionOnly}` },
      errors: [403],
    },
    input: ListAccessTokensInput.optional(),
    item: AccessTokenSchema,
    list: (ctx, input) => ctx.services.accessTokens.list(ctx.userId, input ?? {}),
  }),

  revoke: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/auth/tokens/{id}', tags, summary: 'Revoke a personal access token', description: `It gets 401 from then on, on every instance. ${sessionOnly}` },
      errors: [403],
    })
    .input(PathIdInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.accessTokens.revoke(ctx.userId, input.id)),
});
