import type { Db } from '@tasklane/db';
import type { Activity, ListProjectActivityInput } from '@tasklane/schemas';
import { requireProjectAccess } from '../policy/access';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import type { TasksService } from '../tasks/service';
import { toActivity } from '../../events/record';
import * as store from './store';

export { toActivity };

/** For the projects service, in its transaction: a project's history is deleted with it (its `project.deleted` entry is recorded afterwards). */
export const forgetProjectActivity = (tx: Db, projectId: string) => store.deleteProjectActivity(tx, projectId);

export function createActivityService(db: Db, tasks: TasksService) {
  async function page(scope: { projectId: string } | { taskId: string }, query: Omit<ListProjectActivityInput, 'id'>): Promise<Page<Activity>> {
    const limit = pageSize(query.limit);
    const [beforeId] = decodeCursor(query.cursor, [cursorChecks.positiveInteger]) ?? [];
    const rows = await store.listNewestFirst(db, scope, typeof beforeId === 'number' ? beforeId : undefined, limit + 1);
    return toPage(rows, limit, toActivity, (row) => [row.id]);
  }

  return {
    async listForProject(userId: string, { id, ...query }: ListProjectActivityInput): Promise<Page<Activity>> {
      await requireProjectAccess(db, id, userId);
      return page({ projectId: id }, query);
    },

    async listForTask(userId: string, { id, ...query }: ListProjectActivityInput): Promise<Page<Activity>> {
      await tasks.loadTask(userId, id);
      return page({ taskId: id }, query);
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
