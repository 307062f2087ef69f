import {
  CreateTaskInput,
  ListProjectTasksInput,
  MessageSchema,
  MoveTaskInput,
  PathIdInput,
  TaskFilterShape,
  TaskIdOrKeyInput,
  TaskSchema,
  UpdateTaskInput,
  withFieldFilters,
} from '@tasklane/schemas';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { idempotentCreate } from '../idempotent';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['tasks'];
const listDescription =
  'Filters combine: status and priority take comma lists, assigneeId an id, `me` or `none`, parentId a task id or `none` (top-level tasks); `q` searches title and description, and a task key in it matches that task. Custom fields filter with `field.<fieldId>=<value>` (a `select` or `multi_select` field takes a comma list of option ids, any of; a checkbox `true` or `false`) and, for `number` and `date` fields, `field.<fieldId>.gte` and `field.<fieldId>.lte` (an unknown field or a value of another type: 400 naming the key); `sort=field.<fieldId>` sorts by one, tasks without a value last. Paged by cursor (`Link: rel="next"`).';

export const tasksRouter = router({
  ...pagedList('listForProject', {
    meta: { openapi: { method: 'GET', path: '/tasks/project/{projectId}', tags, summary: "List a project's tasks", description: listDescription } },
    input: ListProjectTasksInput,
    item: TaskSchema,
    list: (ctx, input) => ctx.services.tasks.listForProject(ctx.userId, input),
  }),

  ...pagedList('listMine', {
    meta: {
      openapi: { method: 'GET', path: '/tasks', tags, summary: 'Tasks across my projects', description: `Tasks of every project the caller is a member of ("my work" with \`assigneeId=me\`). ${listDescription}` },
    },
    input: withFieldFilters(TaskFilterShape).optional(),
    item: TaskSchema,
    list: (ctx, input) => ctx.services.tasks.listAcrossProjects(ctx.userId, input ?? {}),
  }),

  create: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/tasks', tags, summary: 'Create a task', description: 'EDITOR, ADMIN or owner. Status defaults to TODO, priority to MEDIUM; the assignee must be a member; parentId makes it a subtask of a task of the same project. The task gets the next number of its project (its key, `WEB-42`). Honours Idempotency-Key.' },
      successStatus: 201,
      location: '/tasks/{id}',
      errors: [403, 409],
      headers: ['ETag', 'Idempotent-Replayed'],
      requestHeaders: ['Idempotency-Key'],
    })
    .input(CreateTaskInput)
    .output(TaskSchema)
    .mutation(async ({ ctx, input }) =>
      withETag(ctx.response, await idempotentCreate(ctx, 'tasks.create', input, () => ctx.services.tasks.create(ctx.userId, input))),
    ),

  get: protectedProcedure
    .meta({
      openapi: { method: 'GET', path: '/tasks/{id}', tags, summary: 'Get a task', description: 'By id or by key (`WEB-42`, any case; a key from before the project\'s key changed too). Members of its project only. The ETag is for If-Match on PATCH and DELETE.' },
      headers: ['ETag'],
    })
    .input(TaskIdOrKeyInput)
    .output(TaskSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.tasks.get(ctx.userId, input.id))),

  update: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/tasks/{id}', tags, summary: 'Update a task', description: 'Any of title, description, status, priority, dueDate, startDate, assigneeId, labelIds, parentId, recurrence (null clears; a parent that would make the task its own ancestor: 400 PARENT_CYCLE; a startDate after the dueDate the task is left with, either sent or stored: 400 START_AFTER_DUE). Completing a recurring task creates its next occurrence (once). EDITOR, ADMIN or owner. With If-Match, a stale version is refused (412).' },
      errors: [403, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateTaskInput)
    .output(TaskSchema)
    .mutation(async ({ ctx, input }) =>
      withETag(ctx.response, await ctx.services.tasks.update(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
    ),

  move: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/tasks/{id}/move',
        tags,
        summary: 'Move a task in the board order',
        description:
          "Places the task right after `afterId` (the task above it) and right before `beforeId` (the task below it) in `status` (default: its own; a change of status as by PATCH). Neither: the end of the column. Each neighbour must be a task of the same project in that status (else 400 naming it, reason INVALID_NEIGHBOUR). Only this task's `position` changes; concurrent moves into one gap all land, in distinct positions. EDITOR, ADMIN or owner. With If-Match, a stale version is refused (412).",
      },
      errors: [403, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(MoveTaskInput)
    .output(TaskSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.tasks.move(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  delete: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/tasks/{id}', tags, summary: 'Delete a task', description: 'Deletes its comments too; its subtasks stay, detached (top-level). EDITOR, ADMIN or owner. With If-Match, a stale version is refused (412).' },
      errors: [403, 412],
      requestHeaders: ['If-Match'],
    })
    .input(PathIdInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.tasks.remove(ctx.userId, input.id, acceptedVersions(ctx.ifMatch))),
});
