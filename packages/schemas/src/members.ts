import { z } from 'zod';
import { IdRefSchema, IdSchema, PageQueryShape, PathIdSchema } from './common';
import { EmailSchema } from './auth';

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

export type Role = z.infer<typeof RoleSchema>;
export type Member = z.infer<typeof MemberSchema>;
export type InviteMemberInput = z.infer<typeof InviteMemberInput>;
export type ChangeRoleInput = z.infer<typeof ChangeRoleInput>;
export type ListMembersInput = z.infer<typeof ListMembersInput>;
export type MemberPathInput = z.infer<typeof MemberPathInput>;
export type TransferOwnershipInput = z.infer<typeof TransferOwnershipInput>;
