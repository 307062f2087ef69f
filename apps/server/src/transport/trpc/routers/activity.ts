import { ActivitySchema, ListProjectActivityInput, ListTaskActivityInput } from '@tasklane/schemas';
import { router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['activity'];
const pagingNote = 'Newest first, paged by cursor (`Link: rel="next"`). Every member may read it. Event types and payloads: docs/events.md.';

export const activityRouter = router({
  ...pagedList('listForProject', {
    meta: { openapi: { method: 'GET', path: '/projects/{id}/activity', tags, summary: "A project's activity", description: `Every change of the project, its members, tasks and comments: who, when, what, and for updates the old and new values. ${pagingNote}` } },
    input: ListProjectActivityInput,
    item: ActivitySchema,
    list: (ctx, input) => ctx.services.activity.listForProject(ctx.userId, input),
  }),

  ...pagedList('listForTask', {
    meta: { openapi: { method: 'GET', path: '/tasks/{id}/activity', tags, summary: "A task's activity", description: `Changes of the task and its comments. ${pagingNote}` } },
    input: ListTaskActivityInput,
    item: ActivitySchema,
    list: (ctx, input) => ctx.services.activity.listForTask(ctx.userId, input),
  }),
});
