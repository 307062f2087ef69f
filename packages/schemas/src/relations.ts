import { z } from 'zod';
import { IdRefSchema, IdSchema, PathIdSchema, TimestampSchema } from './common';
import { TaskSchema } from './tasks';

/**
 * `blocks`: the source must be finished (completed or cancelled) before the target can be; the
 * target reads `blocked` until then. `relates_to` is symmetric (A relates to B is B relates to A).
 * `duplicates`: the source is a duplicate of the target.
 */
export const RELATION_TYPES = ['blocks', 'relates_to', 'duplicates'] as const;
export const RELATION_DIRECTIONS = ['outgoing', 'incoming'] as const;

export const RelationTypeSchema = z.enum(RELATION_TYPES).meta({ id: 'RelationType' });

export const RelationSchema = z
  .object({
    id: IdSchema,
    type: RelationTypeSchema,
    taskId: IdSchema.meta({ description: 'The source: the task that blocks, relates to or duplicates the other' }),
    relatedTaskId: IdSchema.meta({ description: 'The target: the task blocked, related to or duplicated' }),
    createdAt: TimestampSchema,
  })
  .meta({
    id: 'Relation',
    example: {
      id: '0193a5b4-9d2e-7f10-8a3b-5c6d7e8f9a0b',
      type: 'blocks',
      taskId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
      relatedTaskId: '0193a5b4-8a1b-7c2d-8e3f-4a5b6c7d8e9f',
      createdAt: '2026-11-21T09:30:00.000Z',
    },
  });

/** The other task of a relation, as much of it as a list of relations shows. */
export const RelatedTaskSchema = z
  .object({
    id: IdSchema,
    key: z.string().meta({ description: 'The task key, e.g. `ENG-42`' }),
    title: z.string(),
    status: TaskSchema.shape.status,
    projectId: IdSchema,
  })
  .meta({ id: 'RelatedTask' });

export const TaskRelationSchema = z
  .object({
    id: IdSchema.meta({ description: 'The relation id (for DELETE)' }),
    type: RelationTypeSchema,
    direction: z.enum(RELATION_DIRECTIONS).meta({
      description: '`outgoing`: this task is the source (it blocks, relates to, duplicates `task`); `incoming`: `task` is the source (an incoming `blocks` reads "blocked by")',
    }),
    task: RelatedTaskSchema,
  })
  .meta({ id: 'TaskRelation' });

export const CreateRelationInput = z
  .object({
    id: PathIdSchema,
    type: RelationTypeSchema,
    taskId: IdRefSchema.meta({ description: 'The other task (the target), in any project the caller is a member of; else a 404' }),
  })
  .strict()
  .meta({ examples: [{ type: 'blocks', taskId: '0193a5b4-8a1b-7c2d-8e3f-4a5b6c7d8e9f' }] });

export const RelationPathInput = z.object({ id: PathIdSchema, relationId: PathIdSchema }).strict();
export const ListRelationsInput = z.object({ id: PathIdSchema }).strict();

export type RelationType = z.infer<typeof RelationTypeSchema>;
export type Relation = z.infer<typeof RelationSchema>;
export type RelatedTask = z.infer<typeof RelatedTaskSchema>;
export type TaskRelation = z.infer<typeof TaskRelationSchema>;
export type CreateRelationInput = z.infer<typeof CreateRelationInput>;
export type RelationPathInput = z.infer<typeof RelationPathInput>;
export type ListRelationsInput = z.infer<typeof ListRelationsInput>;
