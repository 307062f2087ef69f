import { z } from 'zod';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';
import { text } from './text';
import { RoleSchema } from './members';
import { ESTIMATE_UNITS } from './constants';

export { ESTIMATE_UNITS } from './constants';

export const PROJECT_NAME_MAX = 200;
export const PROJECT_DESCRIPTION_MAX = 10_000;
export type EstimateUnit = (typeof ESTIMATE_UNITS)[number];

/** A project key: 2–10 letters and digits, starting with a letter, in either case (stored in upper case). */
export const PROJECT_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9]{1,9}$/;

/** A project key as a client may send it: either case (stored in upper case). */
const ProjectKeyInput = z
  .string()
  .regex(PROJECT_KEY_PATTERN, { error: 'key must be 2–10 letters and digits, starting with a letter' })
  .meta({ description: 'Project key: 2–10 letters and digits, starting with a letter; stored in upper case; unique on the server (409 PROJECT_KEY_TAKEN)', example: 'WEB' });

export const ProjectSchema = z
  .object({
    id: IdSchema,
    key: z.string().meta({ description: 'The project\'s key, the stem of its task keys ("WEB" makes WEB-1, WEB-2 …); a key it had before still finds its tasks', example: 'WEB' }),
    name: z.string(),
    description: z.string(),
    ownerId: IdSchema,
    role: RoleSchema.meta({ description: "The caller's role in the project (the owner is an ADMIN)" }),
    estimateUnit: z.enum(ESTIMATE_UNITS).meta({ description: "The unit of its tasks' estimates: `points` (the default) or `hours`" }),
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
  storageBytes: z.number().int().meta({
    description: "Bytes of file storage the project's attachments use, each distinct file counted once (the same bytes attached twice are stored once); PROJECT_STORAGE_QUOTA caps it",
    example: 1048576,
  }),
  estimateTotals: z
    .record(z.string(), z.number())
    .meta({
      description: "The sum of the estimates of the tasks in each of the project's states, by state key, in the project's estimateUnit (every state present, 0 when none)",
      example: { TODO: 8, IN_PROGRESS: 3, IN_REVIEW: 0, DONE: 13, CANCELLED: 0 },
    }),
}).meta({ id: 'ProjectDetail' });

export const CreateProjectInput = z
  .object({
    name: trimmed(1, PROJECT_NAME_MAX),
    description: text({ max: PROJECT_DESCRIPTION_MAX }).optional(),
    key: ProjectKeyInput.optional().meta({ description: 'Derived from the name when absent (its initials, or its first letters, and a number if taken)' }),
  })
  .strict()
  .meta({ examples: [{ name: 'Website relaunch', description: 'Everything for the new site' }] });

export const UpdateProjectInput = z
  .object({
    id: PathIdSchema,
    name: trimmed(1, PROJECT_NAME_MAX).optional(),
    description: text({ max: PROJECT_DESCRIPTION_MAX }).optional(),
    key: ProjectKeyInput.optional().meta({ description: "ADMIN or owner. The former key stays the project's: its task keys keep finding their tasks" }),
    estimateUnit: z.enum(ESTIMATE_UNITS).optional().meta({ description: "The unit of the tasks' estimates; changing it keeps the numbers as they are" }),
  })
  .strict()
  .meta({ examples: [{ name: 'Website relaunch 2027' }] });

export const ListProjectsInput = z.object({ ...PageQueryShape }).strict();

export type Project = z.infer<typeof ProjectSchema>;
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;
export type UpdateProjectInput = z.infer<typeof UpdateProjectInput>;
export type ProjectDetail = z.infer<typeof ProjectDetailSchema>;
