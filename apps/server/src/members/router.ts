import {
  ChangeRoleInput,
  InviteMemberInput,
  ListMembersInput,
  MemberPathInput,
  MemberSchema,
  MessageSchema,
} from '@tasklane/schemas';
import { idempotentCreate } from '../trpc/idempotent';
import { protectedProcedure, router } from '../trpc/init';
import { pagedList } from '../trpc/paged-list';

const tags = ['members'];

export const membersRouter = router({
  ...pagedList('list', {
    meta: { openapi: { method: 'GET', path: '/projects/{id}/members', tags, summary: 'List members', description: "The project's members with their names and emails, in the order they joined, paged by cursor. Any member." } },
    input: ListMembersInput,
    item: MemberSchema,
    list: (ctx, input) => ctx.services.members.list(ctx.userId, input),
  }),

  invite: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{id}/members/invite', tags, summary: 'Invite a user', description: 'Adds a registered user to the project by email (role defaults to VIEWER). ADMIN or owner. Honours Idempotency-Key.' },
      successStatus: 201,
      location: '/projects/{projectId}/members/{id}',
      errors: [403, 409],
      headers: ['Idempotent-Replayed'],
      requestHeaders: ['Idempotency-Key'],
    })
    .input(InviteMemberInput)
    .output(MemberSchema)
    .mutation(({ ctx, input }) =>
      idempotentCreate(ctx, 'members.invite', input, () => ctx.services.members.invite(ctx.userId, input)),
    ),

  changeRole: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/projects/{id}/members/{memberId}/role', tags, summary: "Change a member's role", description: "ADMIN or owner; the owner's membership cannot be changed (409)." },
      errors: [403, 409],
    })
    .input(ChangeRoleInput)
    .output(MemberSchema)
    .mutation(({ ctx, input }) => ctx.services.members.changeRole(ctx.userId, input)),

  remove: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{id}/members/{memberId}', tags, summary: 'Remove a member, or leave', description: "ADMIN or owner remove anyone but the owner (409 OWNER_IMMUTABLE); any member may remove themselves (leave). The member's tasks in the project are unassigned." },
      errors: [403, 409],
    })
    .input(MemberPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.members.remove(ctx.userId, input)),
});
