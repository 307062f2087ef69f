import {
  AcceptedInvitationSchema,
  AcceptInvitationInput,
  ChangeRoleInput,
  InvitationPathInput,
  InvitationSchema,
  InviteResultSchema,
  ListInvitationsInput,
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
      openapi: {
        method: 'POST',
        path: '/projects/{id}/members/invite',
        tags,
        summary: 'Invite someone',
        description:
          'By email (role defaults to VIEWER). A registered user is added at once: the answer is the Member. Any other email gets an Invitation (Location: the project\'s invitations) whose link, `<PUBLIC_URL>/invite/<token>`, is emailed, or, when the server sends no email, given once as `acceptUrl`. Inviting an email with an invitation renews it (same id, new link and expiry; the earlier link stops working). ADMIN or owner. Honours Idempotency-Key.',
      },
      successStatus: 201,
      location: '/projects/{projectId}/members/{id}',
      errors: [403, 409],
      headers: ['ETag', 'Idempotent-Replayed'],
      requestHeaders: ['Idempotency-Key'],
    })
    .input(InviteMemberInput)
    .output(InviteResultSchema)
    .mutation(async ({ ctx, input }) => {
      // The version is kept with the stored answer, so a replay carries the first answer's ETag.
      const created = await idempotentCreate(ctx, 'members.invite', input, () => ctx.services.members.invite(ctx.userId, input));
      const { resource } = created;
      if ('status' in resource) ctx.response.headers.location = `/api/v1/projects/${resource.projectId}/invitations/${resource.id}`;
      return withVersionETag(ctx.response, created);
    }),

  ...pagedList('listInvitations', {
    meta: {
      openapi: { method: 'GET', path: '/projects/{id}/invitations', tags, summary: 'List pending invitations', description: "The project's pending invitations (not yet accepted, revoked or expired), oldest first, paged by cursor. ADMIN or owner." },
      errors: [403],
    },
    input: ListInvitationsInput,
    item: InvitationSchema,
    list: (ctx, input) => ctx.services.members.listInvitations(ctx.userId, input),
  }),

  deleteInvitation: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{id}/invitations/{invitationId}', tags, summary: 'Revoke an invitation', description: 'Its link stops working. ADMIN or owner.' },
      errors: [403],
    })
    .input(InvitationPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.members.deleteInvitation(ctx.userId, input)),

  acceptInvitation: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/invitations/{token}/accept',
        tags,
        summary: 'Accept an invitation',
        description:
          "The signed-in user, whatever their email, joins the invitation's project with its role; the link then no longer works. Already a member: `joined` is false, the role unchanged and the invitation left pending. An unknown, used, revoked or expired link is a 404 INVITATION_INVALID.",
      },
    })
    .input(AcceptInvitationInput)
    .output(AcceptedInvitationSchema)
    .mutation(({ ctx, input }) => ctx.services.members.acceptInvitation(ctx.userId, input)),

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
