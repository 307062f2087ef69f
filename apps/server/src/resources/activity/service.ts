import type { Db } from '@tasklane/db';
import type { Activity, ListProjectActivityInput } from '@tasklane/schemas';
import { requireProjectAccess } from '../policy/access';
import { can, type ProjectAccess } from '../policy/policy';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import type { TasksService } from '../tasks/service';
import { toActivity } from '../../events/record';
import * as store from './store';

export { toActivity };

/**
 * An event as one member may read it: an invitation's email belongs to someone who is not a member
 * (and may never be), so only those who manage members (and see the pending invitations) read it.
 */
export function shownTo(access: ProjectAccess): (entry: Activity) => Activity {
  if (can(access, 'members.manage')) return (entry) => entry;
  return (entry) => {
    if (!entry.type.startsWith('invitation.')) return entry;
    const { email: _email, ...resource } = entry.resource;
    return { ...entry, resource };
  };
}

/** For the projects service, in its transaction: a project's history is deleted with it (its `project.deleted` entry is recorded afterwards). */
export const forgetProjectActivity = (tx: Db, projectId: string) => store.deleteProjectActivity(tx, projectId);

export function createActivityService(db: Db, tasks: TasksService) {
  async function page(scope: { projectId: string } | { taskId: string }, query: Omit<ListProjectActivityInput, 'id'>, shown: (entry: Activity) => Activity): Promise<Page<Activity>> {
    const limit = pageSize(query.limit);
    const [beforeId] = decodeCursor(query.cursor, [cursorChecks.positiveInteger]) ?? [];
    const rows = await store.listNewestFirst(db, scope, typeof beforeId === 'number' ? beforeId : undefined, limit + 1);
    return toPage(rows, limit, (row) => shown(toActivity(row)), (row) => [row.id]);
  }

  return {
    async listForProject(userId: string, { id, ...query }: ListProjectActivityInput): Promise<Page<Activity>> {
      const access = await requireProjectAccess(db, id, userId);
      return page({ projectId: id }, query, shownTo(access));
    },

    async listForTask(userId: string, { id, ...query }: ListProjectActivityInput): Promise<Page<Activity>> {
      // A task's history holds no invitation events.
      await tasks.loadTask(userId, id);
      return page({ taskId: id }, query, (entry) => entry);
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
