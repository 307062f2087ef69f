import {
  ChangeRoleInput,
  InviteMemberInput,
  ListMembersInput,
  MemberPathInput,
  MemberSchema,
  MessageSchema,
} from '@tasklane/schemas';
import { acceptedVersions, withVersionETag } from '../../../platform/versions';
import { idempotentCreate } from '../idempotent';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['members'];
const member = '/projects/{id}/members/{memberId}';
const staleRefused = 'With If-Match, a stale version is refused (412).';

export const membersRouter = router({
  ...pagedList('list', {
    meta: { openapi: { method: 'GET', path: '/projects/{id}/members', tags, summary: 'List members', description: "The project's members with their names and emails, in the order they joined, paged by cursor. Any member." } },
    input: ListMembersInput,
    item: MemberSchema,
    list: (ctx, input) => ctx.services.members.list(ctx.userId, input),
  }),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: member, tags, summary: 'Get a member', description: 'The member with their name and email, as the list gives it. Any member.' }, headers: ['ETag'] })
    .input(MemberPathInput)
    .output(MemberSchema)
    .query(async ({ ctx, input }) => withVersionETag(ctx.response, await ctx.services.members.get(ctx.userId, input))),

  invite: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{id}/members/invite', tags, summary: 'Invite a user', description: 'Adds a registered user to the project by email (role defaults to VIEWER). ADMIN or owner. Honours Idempotency-Key.' },
      successStatus: 201,
      location: '/projects/{projectId}/members/{id}',
      errors: [403, 409],
      headers: ['ETag', 'Idempotent-Replayed'],
      requestHeaders: ['Idempotency-Key'],
    })
    .input(InviteMemberInput)
    .output(MemberSchema)
    .mutation(async ({ ctx, input }) =>
      // The version is kept with the stored answer, so a replay carries the first answer's ETag.
      withVersionETag(ctx.response, await idempotentCreate(ctx, 'members.invite', input, () => ctx.services.members.invite(ctx.userId, input))),
    ),

  changeRole: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: `${member}/role`, tags, summary: "Change a member's role", description: `ADMIN or owner; the owner's membership cannot be changed (409). ${staleRefused}` },
      errors: [403, 409, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(ChangeRoleInput)
    .output(MemberSchema)
    .mutation(async ({ ctx, input }) => withVersionETag(ctx.response, await ctx.services.members.changeRole(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  remove: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: member, tags, summary: 'Remove a member, or leave', description: `ADMIN or owner remove anyone but the owner (409 OWNER_IMMUTABLE); any member may remove themselves (leave). The member's tasks in the project are unassigned. ${staleRefused}` },
      errors: [403, 409, 412],
      requestHeaders: ['If-Match'],
    })
    .input(MemberPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.members.remove(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
});
