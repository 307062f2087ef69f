import { z } from 'zod';
import { dateTime, enumList, IdRefSchema, IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';
import { text } from './text';
import { type DefaultStatus, STATE_CATEGORIES, StateKeySchema } from './states';
import { FIELD_FILTER_KEY, FieldValueSchema, TaskFieldsInput } from './fields';

/** Listed in rank order: sorting by priority uses this order, not the alphabet. */
export const TASK_PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export const TASK_TITLE_MAX = 500;
export const TASK_DESCRIPTION_MAX = 50_000;
/** The most labels one task carries, and the most a `labelId` filter names. */
export const TASK_LABELS_MAX = 20;

/** The key of one of the task's project's states (GET /projects/{id}/states); another value is a 400 naming `status`. */
export const TaskStatusSchema = StateKeySchema.meta({
  id: 'TaskStatus',
  description: "The key of one of the project's states (GET /projects/{id}/states); a project starts with TODO, IN_PROGRESS, IN_REVIEW, DONE and CANCELLED",
  example: 'IN_PROGRESS',
});
export const TaskPrioritySchema = z.enum(TASK_PRIORITIES).meta({ id: 'TaskPriority' });

/** A task key as a client may send it ("ENG-42", any case): the project's key, a dash and the task's number. */
export const TASK_KEY_PATTERN = /^([A-Za-z][A-Za-z0-9]{1,9})-([1-9][0-9]{0,9})$/;

export const RECURRENCE_MAX = 500;

/**
 * A recurring task's rule: an RFC 5545 RRULE value. The server parses and steps it (the `rrule`
 * package) and answers anything else with a 400 naming `recurrence`; here only its size and shape.
 */
export const RecurrenceSchema = text({ max: RECURRENCE_MAX }).meta({
  id: 'Recurrence',
  description:
    'An RFC 5545 RRULE value (an `RRULE:` prefix is allowed): `FREQ` of DAILY, WEEKLY, MONTHLY or YEARLY, with `INTERVAL`, `BYDAY`, `BYMONTHDAY`, `BYMONTH`, `BYSETPOS`, `COUNT` (occurrences left, this task included) and `UNTIL`; dates are stepped in UTC from the task\'s `dueDate`, which a recurring task must have. Completing the task creates its next occurrence',
  example: 'FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1',
});

const DueDateSchema = dateTime().meta({ description: 'RFC 3339 date-time (returned normalised to UTC)', example: '2026-12-01T17:00:00.000Z' });
/** Not after the due date: the server checks the task as the write leaves it (400 START_AFTER_DUE naming `startDate`). */
const StartDateSchema = dateTime().meta({
  description: "RFC 3339 date-time (returned normalised to UTC) when work on the task begins; not after the task's dueDate (400 START_AFTER_DUE naming startDate); null clears it",
  example: '2026-11-24T09:00:00.000Z',
});

export const TaskSchema = z
  .object({
    id: IdSchema,
    title: z.string(),
    description: z.string(),
    status: TaskStatusSchema,
    priority: TaskPrioritySchema,
    dueDate: TimestampSchema.nullable(),
    startDate: TimestampSchema.nullable().meta({ description: 'When work on the task begins (never after `dueDate`); null when none. A next occurrence keeps the start-to-due span' }),
    assigneeId: IdSchema.nullable(),
    projectId: IdSchema,
    createdById: IdSchema,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    completedAt: TimestampSchema.nullable(),
    labelIds: z.array(IdSchema).meta({ description: "Ids of the project's labels on the task, in id order (oldest label first); empty when none" }),
    commentCount: z.number().int().meta({ description: 'How many comments the task has' }),
    number: z.number().int().meta({ description: 'The task\'s number in its project: 1, 2, 3 … in creation order, never reused', example: 42 }),
    key: z.string().meta({ description: "The project's current key and the task's number; GET /tasks/{key} finds the task by it (any case, a former project key too)", example: 'WEB-42' }),
    parentId: IdSchema.nullable().meta({ description: 'The task this is a subtask of (same project); null for a top-level task' }),
    subtaskCount: z.number().int().meta({ description: 'How many subtasks the task has' }),
    subtasksDone: z.number().int().meta({ description: 'How many of its subtasks are in a completed state (DONE)' }),
    blocked: z.boolean().meta({ description: 'True while a task blocking this one (a `blocks` relation) is neither completed nor cancelled' }),
    attachmentCount: z.number().int().meta({ description: 'How many files are attached to the task (GET /tasks/{id}/attachments)' }),
    position: z.string().meta({
      description:
        "The task's place in the board's order: an opaque key, unique in the project, that sorts (byte by byte) in the order of the board within each status (`sort=position`). A new task goes to the end; a status change keeps it; `POST /tasks/{id}/move` sets it",
      example: 'a3',
    }),
    // Values typed as possibly absent: a lookup by any field id may find none (and so the SDK's type, generated from this schema, reads it).
    fields: z
      .record(z.string(), FieldValueSchema.optional())
      .meta({ description: "The task's custom field values by field id (GET /projects/{id}/fields): only the fields that have a value", example: {} }),
    recurrence: RecurrenceSchema.nullable(),
    recurredFromId: IdSchema.nullable().meta({ description: 'The recurring task whose completion made this one (its next occurrence); null for any other task' }),
    nextDueDate: TimestampSchema.nullable().meta({
      description: "The due date the task's next occurrence gets when it is completed: the rule's next date after `dueDate` (UTC); null when not recurring or when the rule has no further date (`COUNT` or `UNTIL` reached)",
    }),
    estimate: z.number().nullable().meta({ description: "The task's estimate, a number ≥ 0 in its project's estimateUnit (points or hours); null when none" }),
    timeSpentMinutes: z.number().int().meta({ description: 'The minutes of all time entries logged on the task (GET /tasks/{id}/time-entries)' }),
  })
  .meta({ id: 'Task' });

/** The parent of a subtask: a task of the same project; `null` detaches (PATCH). */
const ParentIdSchema = IdRefSchema.nullable().meta({
  description: "A task of the same project to make this a subtask of (any other id: 400 naming parentId; one that would make the task its own ancestor: 400 PARENT_CYCLE); null makes it top-level",
});

/** Ids of labels of the task's project, each at most once; any other id is a 400 naming `labelIds` (LABEL_NOT_IN_PROJECT). */
const LabelIdsSchema = z
  .array(IdRefSchema)
  .max(TASK_LABELS_MAX, { error: `labelIds lists at most ${TASK_LABELS_MAX} labels` })
  .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, { error: 'labelIds must not name a label twice' })
  .meta({ description: `Ids of labels of the task's project (at most ${TASK_LABELS_MAX}, each once); replaces the task's labels`, example: [] });

/** An estimate: ≥ 0, at most 1 000 000, in hundredths; null clears it. */
export const EstimateSchema = z
  .number()
  .min(0, { error: 'estimate must be ≥ 0' })
  .max(1_000_000, { error: 'estimate must be at most 1000000' })
  .multipleOf(0.01, { error: 'estimate has at most two decimals' })
  .nullable()
  .meta({ description: "A number ≥ 0 in the project's estimateUnit (points or hours); null clears it", example: 3 });

/** A UUID (a label id): filtering by one that names no label of the project matches nothing. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const CreateTaskInput = z
  .object({
    title: trimmed(1, TASK_TITLE_MAX),
    projectId: IdRefSchema,
    description: text({ max: TASK_DESCRIPTION_MAX }).optional(),
    status: TaskStatusSchema.optional(),
    priority: TaskPrioritySchema.optional(),
    dueDate: DueDateSchema.nullable().optional(),
    startDate: StartDateSchema.nullable().optional(),
    assigneeId: IdRefSchema.nullable().optional(),
    labelIds: LabelIdsSchema.optional(),
    parentId: ParentIdSchema.optional(),
    fields: TaskFieldsInput.optional(),
    recurrence: RecurrenceSchema.nullable().optional(),
    estimate: EstimateSchema.optional(),
  })
  .strict()
  .meta({
    examples: [
      {
        title: 'Write the launch post',
        projectId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
        priority: 'HIGH',
        dueDate: '2026-12-01T17:00:00.000Z',
      },
    ],
  });

export const UpdateTaskInput = z
  .object({
    id: PathIdSchema,
    title: trimmed(1, TASK_TITLE_MAX).optional(),
    description: text({ max: TASK_DESCRIPTION_MAX }).optional(),
    status: TaskStatusSchema.optional(),
    priority: TaskPrioritySchema.optional(),
    dueDate: DueDateSchema.nullable().optional(),
    startDate: StartDateSchema.nullable().optional(),
    assigneeId: IdRefSchema.nullable().optional(),
    labelIds: LabelIdsSchema.optional(),
    parentId: ParentIdSchema.optional(),
    fields: TaskFieldsInput.optional(),
    recurrence: RecurrenceSchema.nullable().optional(),
    estimate: EstimateSchema.optional(),
  })
  .strict()
  .meta({ examples: [{ status: 'IN_PROGRESS' }] });

/**
 * Where a task goes (POST /tasks/{id}/move), as Jira's rank API names it: right after `afterId`
 * (the task above it), right before `beforeId` (the task below it), in `status` (default: its
 * own). Neither: the end of the column.
 */
export const MoveTaskInput = z
  .object({
    id: PathIdSchema,
    status: TaskStatusSchema.optional(),
    afterId: IdRefSchema.optional().meta({
      description: 'The task the moved one goes right after (its neighbour above), a task of the same project in the target status',
      example: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
    }),
    beforeId: IdRefSchema.optional().meta({
      description: 'The task the moved one goes right before (its neighbour below), a task of the same project in the target status; with `afterId`, it must come after that task',
    }),
  })
  .strict()
  .meta({ examples: [{ status: 'IN_PROGRESS', afterId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }] });

export const TASK_SORT_FIELDS = ['createdAt', 'updatedAt', 'dueDate', 'priority', 'title', 'position', 'status', 'assignee'] as const;
export type TaskSortField = (typeof TASK_SORT_FIELDS)[number];
/** A sort field, `-` first for descending. */
export type TaskSort = TaskSortField | `-${TaskSortField}`;
/** A sort by a custom field: `field.<id>`, `-` first for descending. */
export type TaskFieldSort = `field.${string}` | `-field.${string}`;
/** A sort field or a custom field, `-` first for descending. */
const SORT_PATTERN = new RegExp(`^-?(?:${TASK_SORT_FIELDS.join('|')}|field\\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`);

/** A task id or `none`. */
const PARENT_FILTER = /^(?:none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

/** A user id (any UUID, as ids are checked everywhere), `me` or `none`. */
const ASSIGNEE_FILTER = /^(?:me|none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

export const TaskFilterShape = {
  status: z
    .array(StateKeySchema)
    .min(1, { error: 'status must name at least one state key' })
    .max(50, { error: 'status lists at most 50 state keys' })
    .meta({ description: 'Comma list of state keys: tasks in any of them (a key no state of the project has matches nothing)', example: ['TODO', 'IN_PROGRESS'] })
    .optional(),
  statusCategory: enumList(STATE_CATEGORIES, 'statusCategory'),
  priority: enumList(TASK_PRIORITIES, 'priority'),
  assigneeId: z
    .string()
    .regex(ASSIGNEE_FILTER, { error: 'assigneeId must be a user id, "me" or "none"' })
    .meta({ description: 'A user id, `me` (the caller) or `none` (unassigned)', example: 'me' })
    .optional(),
  labelId: z
    .array(z.string().regex(UUID, { error: 'labelId must be a comma list of label ids' }))
    .min(1, { error: 'labelId must name at least one label' })
    .max(TASK_LABELS_MAX, { error: `labelId lists at most ${TASK_LABELS_MAX} labels` })
    .meta({ description: 'Comma list of label ids: tasks carrying any of them', example: ['0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b'] })
    .optional(),
  parentId: z
    .string()
    .regex(PARENT_FILTER, { error: 'parentId must be a task id or "none"' })
    .meta({ description: 'A task id (its subtasks) or `none` (top-level tasks only)', example: 'none' })
    .optional(),
  dueBefore: dateTime().meta({ description: 'Only tasks due strictly before this date-time', example: '2026-12-01T00:00:00Z' }).optional(),
  dueAfter: dateTime().meta({ description: 'Only tasks due strictly after this date-time', example: '2026-11-01T00:00:00Z' }).optional(),
  startBefore: dateTime().meta({ description: 'Only tasks starting strictly before this date-time (a task without a startDate never matches)', example: '2026-12-01T00:00:00Z' }).optional(),
  startAfter: dateTime().meta({ description: 'Only tasks starting strictly after this date-time (a task without a startDate never matches)', example: '2026-11-01T00:00:00Z' }).optional(),
  q: text({ max: 200 }).meta({ description: 'Case-insensitive text searched in title and description; a task key (`WEB-42`, any case) also matches that task' }).optional(),
  sort: z
    .string()
    .regex(SORT_PATTERN, { error: `sort must be one of ${TASK_SORT_FIELDS.join(', ')} or field.<fieldId>, with - first for descending` })
    .meta({
      description: `Sort field (${TASK_SORT_FIELDS.join(', ')}, or \`field.<fieldId>\` for a custom field, tasks without a value last), \`-\` prefix for descending (default \`createdAt\`); ties broken by id. \`position\` is the board's order (within each status); \`status\` the order of the project's workflow states (the board's columns); \`assignee\` the assignee's name regardless of case, unassigned tasks last (first descending)`,
      example: '-dueDate',
    })
    .optional(),
  ...PageQueryShape,
};

/** GET /tasks/{id}: a task's id, or its key. */
export const TaskIdOrKeyInput = z
  .object({ id: PathIdSchema.meta({ description: 'The task\'s id, or its key (`WEB-42`, any case, with the project\'s current or a former key); unknown or malformed: 404' }) })
  .strict();

/** The most custom field filters one list takes. */
export const TASK_FIELD_FILTERS_MAX = 10;

/**
 * A task list's query: the filters of `shape`, and custom field filters, whose keys name the field
 * (`field.<fieldId>`, `field.<fieldId>.gte`, `field.<fieldId>.lte`): the server checks each value
 * against its field's type (400 naming the key). Any other key is refused, as a strict object does.
 */
export const withFieldFilters = <Shape extends z.core.$ZodLooseShape>(shape: Shape) =>
  z
    .object(shape)
    .catchall(text({ max: 2000 }))
    .superRefine((input, context) => {
      const extra = Object.keys(input).filter((key) => !Object.hasOwn(shape, key));
      const unknown = extra.filter((key) => !FIELD_FILTER_KEY.test(key));
      if (unknown.length > 0) context.addIssue({ code: 'unrecognized_keys', keys: unknown, input, message: `Unrecognized key${unknown.length > 1 ? 's' : ''}: ${unknown.map((key) => `"${key}"`).join(', ')}` });
      if (extra.length > TASK_FIELD_FILTERS_MAX) context.addIssue({ code: 'custom', input, message: `A list takes at most ${TASK_FIELD_FILTERS_MAX} custom field filters` });
    });

export const ListProjectTasksInput = withFieldFilters({ projectId: PathIdSchema, ...TaskFilterShape });

export type Task = z.infer<typeof TaskSchema>;
/** A state's key: a string, with the keys every project starts with named. */
export type TaskStatus = DefaultStatus | (string & {});
export type TaskPriority = z.infer<typeof TaskPrioritySchema>;
export type CreateTaskInput = z.infer<typeof CreateTaskInput>;
export type UpdateTaskInput = z.infer<typeof UpdateTaskInput>;
export type MoveTaskInput = z.infer<typeof MoveTaskInput>;
/** A list's custom field filters: `field.<id>`, `field.<id>.gte`, `field.<id>.lte` to a value. */
export type TaskFieldFilters = { [key: `field.${string}`]: string };
export type TaskFilterQuery = z.infer<z.ZodObject<typeof TaskFilterShape>> & TaskFieldFilters;
export type ListProjectTasksInput = { projectId: string } & TaskFilterQuery;
