import { z } from 'zod';
import { IdRefSchema, IdSchema, PageQueryShape, PathIdSchema, TimestampSchema } from './common';
import { EmailSchema } from './auth';
import { text } from './text';

export const ROLES = ['VIEWER', 'EDITOR', 'ADMIN'] as const;
export const RoleSchema = z.enum(ROLES).meta({ id: 'Role' });

export const MemberSchema = z
  .object({
    id: IdSchema,
    userId: IdSchema,
    projectId: IdSchema,
    role: RoleSchema,
    name: z.string().meta({ description: "The member's name" }),
    email: z.string().meta({ description: "The member's email" }),
  })
  .meta({ id: 'Member' });

export const InviteMemberInput = z
  .object({
    id: PathIdSchema,
    email: EmailSchema,
    role: RoleSchema.optional(),
  })
  .strict()
  .meta({ examples: [{ email: 'grace@example.com', role: 'EDITOR' }] });

export const ChangeRoleInput = z
  .object({ id: PathIdSchema, memberId: PathIdSchema, role: RoleSchema })
  .strict()
  .meta({ examples: [{ role: 'ADMIN' }] });

export const ListMembersInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export const MemberPathInput = z.object({ id: PathIdSchema, memberId: PathIdSchema }).strict();

export const TransferOwnershipInput = z
  .object({
    id: PathIdSchema,
    userId: IdRefSchema.meta({ description: 'User id of an existing member, who becomes owner and ADMIN' }),
  })
  .strict()
  .meta({ examples: [{ userId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }] });

/** An invitation of an email no account has yet (issue 39): pending until accepted, revoked or expired. */
export const InvitationSchema = z
  .object({
    id: IdSchema,
    email: z.string().meta({ description: 'The invited email' }),
    role: RoleSchema,
    projectId: IdSchema,
    status: z.literal('pending').meta({ description: 'Always `pending`: an accepted, revoked or expired invitation is no longer listed' }),
    expiresAt: TimestampSchema,
    createdAt: TimestampSchema,
    acceptUrl: z
      .string()
      .optional()
      .meta({ description: "The invitation's link, in the answer to the invite only and only when the server sends no email: pass it on yourself" }),
  })
  .meta({ id: 'Invitation' });

/** What inviting answers: the new member (the email has an account) or the invitation (it has none). */
export const InviteResultSchema = z.union([MemberSchema, InvitationSchema]).meta({ id: 'InviteResult' });

export const ListInvitationsInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export const InvitationPathInput = z.object({ id: PathIdSchema, invitationId: PathIdSchema }).strict();

export const AcceptInvitationInput = z
  .object({ token: text({ min: 1, max: 200 }).meta({ description: "The token of the invitation's link (`/invite/<token>`)" }) })
  .strict();

export const AcceptedInvitationSchema = z
  .object({
    member: MemberSchema,
    joined: z.boolean().meta({ description: 'false when the caller already was a member: their role is unchanged and the invitation stays pending' }),
  })
  .meta({ id: 'AcceptedInvitation' });

export type Role = z.infer<typeof RoleSchema>;
export type Member = z.infer<typeof MemberSchema>;
export type InviteMemberInput = z.infer<typeof InviteMemberInput>;
export type ChangeRoleInput = z.infer<typeof ChangeRoleInput>;
export type ListMembersInput = z.infer<typeof ListMembersInput>;
export type MemberPathInput = z.infer<typeof MemberPathInput>;
export type TransferOwnershipInput = z.infer<typeof TransferOwnershipInput>;
export type Invitation = z.infer<typeof InvitationSchema>;
export type InviteResult = z.infer<typeof InviteResultSchema>;
export type ListInvitationsInput = z.infer<typeof ListInvitationsInput>;
export type InvitationPathInput = z.infer<typeof InvitationPathInput>;
export type AcceptInvitationInput = z.infer<typeof AcceptInvitationInput>;
export type AcceptedInvitation = z.infer<typeof AcceptedInvitationSchema>;
