import { ChangeRoleInput, InviteMemberInput, MemberSchema } from '@tasklane/schemas';
import { protectedProcedure, router } from '../trpc/init';

const tags = ['members'];

export const membersRouter = router({
  invite: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{id}/members/invite', tags, summary: 'Invite a user', description: 'Adds a registered user to the project by email (role defaults to VIEWER). ADMIN or owner.' },
      successStatus: 201,
      errors: [403, 409],
    })
    .input(InviteMemberInput)
    .output(MemberSchema)
    .mutation(({ ctx, input }) => ctx.services.members.invite(ctx.userId, input)),

  changeRole: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/projects/{id}/members/{memberId}/role', tags, summary: "Change a member's role", description: "ADMIN or owner; the owner's membership cannot be changed (409)." },
      errors: [403, 409],
    })
    .input(ChangeRoleInput)
    .output(MemberSchema)
    .mutation(({ ctx, input }) => ctx.services.members.changeRole(ctx.userId, input)),
});
