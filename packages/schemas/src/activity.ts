import { z } from 'zod';
import { IdRefSchema, IdSchema, PageQueryShape, PathIdSchema, TimestampSchema } from './common';
import { ACTIVITY_TYPES } from './constants';

export { ACTIVITY_TYPES } from './constants';

export const ActivityTypeSchema = z.enum(ACTIVITY_TYPES).meta({ id: 'ActivityType' });

export const FieldChangeSchema = z
  .object({ old: z.unknown(), new: z.unknown() })
  .meta({ id: 'FieldChange', description: 'A field before and after an update' });

export const ActivitySchema = z
  .object({
    id: z.string().regex(/^\d+$/).meta({ description: 'Event id: increases with every change; the SSE `id:` and the webhook `id`' }),
    type: ActivityTypeSchema,
    time: TimestampSchema,
    actorId: IdSchema.meta({ description: 'The user who made the change' }),
    projectId: IdSchema,
    taskId: IdSchema.nullable().meta({ description: 'The task a task, comment, relation or attachment event concerns (for a relation: the task it was created or deleted from)' }),
    resource: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The changed resource (Project, Member, Invitation, Task, Comment, Label, State, Relation or Attachment) after the change; before it, for deletions' }),
    changes: z
      .record(z.string(), FieldChangeSchema)
      .nullable()
      .meta({ description: 'For updates: each changed field with its old and new value' }),
  })
  .meta({
    id: 'Activity',
    example: {
      id: '42',
      type: 'task.updated',
      time: '2026-11-21T09:30:00.000Z',
      actorId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
      projectId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8c',
      taskId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8d',
      resource: { id: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8d', title: 'Ship it', status: 'DONE' },
      changes: { status: { old: 'IN_REVIEW', new: 'DONE' } },
    },
  });

export const ListProjectActivityInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();
export const ListTaskActivityInput = ListProjectActivityInput;

/** A live subscription to a project's events; `lastEventId` resumes after that event. */
export const ProjectEventsInput = z
  .object({
    projectId: IdRefSchema,
    lastEventId: z.string().regex(/^\d{1,18}$/, 'lastEventId must be an event id').nullish(),
  })
  .strict();

export type ActivityType = z.infer<typeof ActivityTypeSchema>;
export type Activity = z.infer<typeof ActivitySchema>;
export type FieldChange = z.infer<typeof FieldChangeSchema>;
export type ListProjectActivityInput = z.infer<typeof ListProjectActivityInput>;
export type ProjectEventsInput = z.infer<typeof ProjectEventsInput>;
