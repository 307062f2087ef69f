import { z } from 'zod';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';
import { text } from './text';
import { RoleSchema } from './members';

export const PROJECT_NAME_MAX = 200;
export const PROJECT_DESCRIPTION_MAX = 10_000;

export const ProjectSchema = z
  .object({
    id: IdSchema,
    name: z.string(),
    description: z.string(),
    ownerId: IdSchema,
    role: RoleSchema.meta({ description: "The caller's role in the project (the owner is an ADMIN)" }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Project' });

const taskCount = z.number().int();

/** GET /projects/{id}: the project with its task counts by status. */
export const ProjectDetailSchema = ProjectSchema.extend({
  taskCounts: z
    .record(z.string(), taskCount)
    .meta({
      description: "Number of tasks in each of the project's states, by state key (every state present, 0 when none)",
      example: { TODO: 3, IN_PROGRESS: 1, IN_REVIEW: 0, DONE: 7, CANCELLED: 0 },
    }),
}).meta({ id: 'ProjectDetail' });

export const CreateProjectInput = z
  .object({
    name: trimmed(1, PROJECT_NAME_MAX),
    description: text({ max: PROJECT_DESCRIPTION_MAX }).optional(),
  })
  .strict()
  .meta({ examples: [{ name: 'Website relaunch', description: 'Everything for the new site' }] });

export const UpdateProjectInput = z
  .object({
    id: PathIdSchema,
    name: trimmed(1, PROJECT_NAME_MAX).optional(),
    description: text({ max: PROJECT_DESCRIPTION_MAX }).optional(),
  })
  .strict()
  .meta({ examples: [{ name: 'Website relaunch 2027' }] });

export const ListProjectsInput = z.object({ ...PageQueryShape }).strict();

export type Project = z.infer<typeof ProjectSchema>;
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;
export type UpdateProjectInput = z.infer<typeof UpdateProjectInput>;
export type ProjectDetail = z.infer<typeof ProjectDetailSchema>;
