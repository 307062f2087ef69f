import { z } from 'zod';
import { IdSchema, PathIdSchema, TimestampSchema, trimmed } from './common';
import { ColorSchema } from './labels';
import { STATE_CATEGORIES } from './constants';

export { STATE_CATEGORIES, DEFAULT_STATE_COLORS } from './constants';

/** The categories a project always keeps at least one state of (409 STATE_REQUIRED). */
export const REQUIRED_STATE_CATEGORIES = ['unstarted', 'completed'] as const;
export const STATE_NAME_MAX = 50;
export const STATE_KEY_MAX = 30;
/** The most states a project has (409 STATE_LIMIT): a board of more columns than this is no board. */
export const STATES_MAX = 50;

/** UPPER_SNAKE: upper-case letters and digits in words joined by single underscores. */
export const STATE_KEY_PATTERN = /^[A-Z0-9]+(?:_[A-Z0-9]+)*$/;

export const StateCategorySchema = z.enum(STATE_CATEGORIES).meta({ id: 'StateCategory' });

/** A state's key as a task's `status` and the filters carry it; whether the project has it is the server's check (400 UNKNOWN_STATE). */
export const StateKeySchema = z
  .string()
  .max(STATE_KEY_MAX, { error: `a state key has at most ${STATE_KEY_MAX} characters` })
  .regex(STATE_KEY_PATTERN, { error: 'a state key is UPPER_SNAKE: upper-case letters, digits and single underscores' })
  .meta({ description: `The key of a state of the project: UPPER_SNAKE, at most ${STATE_KEY_MAX} characters`, example: 'IN_PROGRESS' });

/** The states every project starts with, in board order (migration 0010 gave existing projects the same). */
export const DEFAULT_STATES = [
  { key: 'TODO', name: 'To do', category: 'unstarted', color: '#6b7280' },
  { key: 'IN_PROGRESS', name: 'In progress', category: 'started', color: '#2563eb' },
  { key: 'IN_REVIEW', name: 'In review', category: 'started', color: '#9333ea' },
  { key: 'DONE', name: 'Done', category: 'completed', color: '#16a34a' },
  { key: 'CANCELLED', name: 'Cancelled', category: 'cancelled', color: '#dc2626' },
] as const satisfies readonly { key: string; name: string; category: (typeof STATE_CATEGORIES)[number]; color: string }[];

/** The keys of the default states: the statuses every project starts with. */
export type DefaultStatus = (typeof DEFAULT_STATES)[number]['key'];

const pathIds = { id: PathIdSchema, stateId: PathIdSchema };

const StateNameSchema = trimmed(1, STATE_NAME_MAX).meta({ description: `1–${STATE_NAME_MAX} characters`, example: 'In QA' });

export const StateSchema = z
  .object({
    id: IdSchema,
    projectId: IdSchema,
    key: z.string().meta({ description: 'UPPER_SNAKE, unique in the project, never changes: what a task\'s `status` holds', example: 'IN_QA' }),
    name: z.string(),
    category: StateCategorySchema,
    color: z.string().meta({ description: '`#rrggbb`, lower case', example: '#2563eb' }),
    position: z.number().int().meta({ description: "The state's place on the board: 0 for the first column, then 1, 2 … without gaps" }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'State' });

export const CreateStateInput = z
  .object({
    id: PathIdSchema,
    name: StateNameSchema,
    category: StateCategorySchema,
    color: ColorSchema.optional().meta({ description: "`#rrggbb` (default: the category's colour)" }),
    key: StateKeySchema.optional().meta({
      description: `UPPER_SNAKE, at most ${STATE_KEY_MAX} characters, unique in the project (409 STATE_EXISTS); derived from the name when absent ("In QA" → IN_QA). Never changes.`,
    }),
  })
  .strict()
  .meta({ examples: [{ name: 'In QA', category: 'started', color: '#f59e0b' }] });

export const UpdateStateInput = z
  .object({
    ...pathIds,
    name: StateNameSchema.optional(),
    color: ColorSchema.optional(),
    category: StateCategorySchema.optional(),
    position: z
      .number()
      .int()
      .min(0)
      .max(STATES_MAX - 1)
      .optional()
      .meta({ description: 'The new place on the board (0 first); the states between its old and new place shift by one. Past the last place: the last.' }),
  })
  .strict()
  .meta({ examples: [{ name: 'Shipped', color: '#0e8a16' }, { position: 0 }] });

export const StatePathInput = z.object(pathIds).strict();

export const DeleteStateInput = z
  .object({
    ...pathIds,
    moveTo: StateKeySchema.optional().meta({ description: "The key of another state of the project to move the state's tasks to, in the same transaction; needed when it has tasks (409 STATE_IN_USE)" }),
  })
  .strict();

export const ListStatesInput = z.object({ id: PathIdSchema }).strict();

export type StateCategory = z.infer<typeof StateCategorySchema>;
export type State = z.infer<typeof StateSchema>;
export type CreateStateInput = z.infer<typeof CreateStateInput>;
export type UpdateStateInput = z.infer<typeof UpdateStateInput>;
export type StatePathInput = z.infer<typeof StatePathInput>;
export type DeleteStateInput = z.infer<typeof DeleteStateInput>;
export type ListStatesInput = z.infer<typeof ListStatesInput>;

/**
 * The key a state named `name` gets when none is given: its letters and digits upper-cased (accents
 * dropped), every other run of characters one underscore, cut to STATE_KEY_MAX ("In QA" → IN_QA).
 * Empty when the name has no letter or digit of A–Z, 0–9.
 */
export const stateKeyFromName = (name: string): string =>
  name
    .normalize('NFKD')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+/, '')
    .slice(0, STATE_KEY_MAX)
    .replace(/_+$/, '');
