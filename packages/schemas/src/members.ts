import { z } from 'zod';
import { IdSchema, PathIdSchema } from './common';

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
    email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
    role: RoleSchema.optional(),
  })
  .strict()
  .meta({ examples: [{ email: 'grace@example.com', role: 'EDITOR' }] });

export const ChangeRoleInput = z
  .object({ id: PathIdSchema, memberId: PathIdSchema, role: RoleSchema })
  .strict()
  .meta({ examples: [{ role: 'ADMIN' }] });

export type Role = z.infer<typeof RoleSchema>;
export type Member = z.infer<typeof MemberSchema>;
export type InviteMemberInput = z.infer<typeof InviteMemberInput>;
export type ChangeRoleInput = z.infer<typeof ChangeRoleInput>;
