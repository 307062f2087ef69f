import type { Db } from '@tasklane/db';
import { type CreateTimeEntryInput, TIMER_MAX_MINUTES, type TimeEntry, type TaskTimeEntriesInput, type TimeReportInput, type TimeReportRow, type Timer, type UpdateTimeEntryInput } from '@tasklane/schemas';
import { isId, newId } from '../../platform/ids';
import { nextVersion } from '../../platform/versions';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { isDate } from '../tasks/field-values';
import { authorize } from '../policy/policy';
import { requireProjectAccess } from '../policy/access';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { lockScope } from '../../events/scope';
import { DomainError, notFound } from '../../platform/errors';
import type { TasksService } from '../tasks/service';
import * as store from './store';

export const toTimeEntry = (row: store.TimeEntryRow): TimeEntry => ({
  id: row.id,
  taskId: row.taskId,
  userId: row.userId,
  minutes: row.minutes,
  date: row.date,
  note: row.note,
  createdAt: row.createdAt.toISOString(),
});

const toTimer = (row: store.TimerRow): Timer => ({ taskId: row.taskId, userId: row.userId, startedAt: row.startedAt.toISOString() });

const utcDate = (time: Date) => time.toISOString().slice(0, 10);

const MINUTE = 60_000;

/** A page cursor's entry date: a `YYYY-MM-DD` that exists. */
const isCalendarDate = (value: unknown) => typeof value === 'string' && isDate(value);

/**
 * What a timer started at `startedAt` and stopped at `now` logs: its whole minutes, at most
 * TIMER_MAX_MINUTES (a timer left running over a day stops itself there), on the UTC date it started.
 */
export function timerMinutes(startedAt: Date, now: Date): number {
  return Math.min(TIMER_MAX_MINUTES, Math.max(0, Math.floor((now.getTime() - startedAt.getTime()) / MINUTE)));
}

/** An entry's task read for its caller: a non-member's 404 names the entry, as for an unknown id. */
const asEntryNotFound = (error: unknown) => {
  throw error instanceof DomainError && error.code === 'NOT_FOUND' ? notFound('Time entry') : error;
};

export function createTimeTrackingService(db: Db, tasks: TasksService) {
  /** A write to a task's time: the task's project and the task locked first (the tasks service's inTaskTransaction), as comments do. */
  const inTaskTransaction = <T>(taskId: string, body: (tx: Db, projectId: string) => Promise<T>): Promise<T> =>
    tasks.inTaskTransaction(taskId, { lockTask: 'key share' }, body);

  /** An entry's write: its task's project and task locked, then the entry FOR UPDATE and the caller's access (404 for non-members). */
  async function inEntryTransaction<T>(userId: string, entryId: string, body: (tx: Db, projectId: string, entry: store.TimeEntryRow, mayManage: boolean) => Promise<T>) {
    const found = isId(entryId) ? await store.findEntry(db, entryId) : undefined;
    if (!found) throw notFound('Time entry');
    return inTaskTransaction(found.entry.taskId, async (tx, projectId) => {
      const [{ access }, locked] = await Promise.all([tasks.loadTask(userId, found.entry.taskId, { tx }).catch(asEntryNotFound), store.findEntry(tx, entryId, { lock: true })]);
      if (!locked) throw notFound('Time entry');
      // The author may change their own entry while they may log time; anyone else needs ADMIN or owner.
      authorize(access, locked.entry.userId === userId ? 'time.log' : 'time.manageAny');
      return body(tx, projectId, locked.entry, true);
    });
  }

  /**
   * Stops the user's running timer (in `tx`, which holds the user's timer lock) into an entry on
   * its task, capped at a day; nothing is logged for a timer under a minute, or whose task's
   * project the user has left. Returns the entry, or null.
   */
  async function stopRunning(tx: Db, userId: string, now: Date): Promise<TimeEntry | null> {
    const running = await store.findTimer(tx, userId);
    if (!running) return null;
    await store.deleteTimer(tx, userId);
    const minutes = timerMinutes(running.timer.startedAt, now);
    if (minutes < 1) return null;
    // The task's project and row locked (FOR KEY SHARE) before the entry goes in: gone, nothing is logged.
    if (!(await lockScope(tx, { projectId: running.projectId, taskId: running.timer.taskId }))) return null;
    const access = await requireProjectAccess(tx, running.projectId, userId).catch(() => undefined);
    if (!access) return null;
    const row: store.TimeEntryRow = { id: newId(), taskId: running.timer.taskId, userId, minutes, date: utcDate(running.timer.startedAt), note: '', createdAt: now, updatedAt: now };
    const entry = toTimeEntry(row);
    await Promise.all([
      store.insertEntry(tx, row),
      recordEvent(tx, { projectId: running.projectId, taskId: row.taskId, actorId: userId, type: 'time_entry.created', resource: entry }),
    ]);
    return entry;
  }

  return {
    async createEntry(userId: string, { id: taskId, minutes, date, note }: CreateTimeEntryInput): Promise<TimeEntry> {
      return inTaskTransaction(taskId, async (tx, projectId) => {
        const { task, access } = await tasks.loadTask(userId, taskId, { tx });
        authorize(access, 'time.log');
        const now = new Date();
        const row: store.TimeEntryRow = { id: newId(), taskId: task.id, userId, minutes, date: date ?? utcDate(now), note: note ?? '', createdAt: now, updatedAt: now };
        const entry = toTimeEntry(row);
        await Promise.all([
          store.insertEntry(tx, row),
          recordEvent(tx, { projectId, taskId: task.id, actorId: userId, type: 'time_entry.created', resource: entry }),
        ]);
        return entry;
      });
    },

    /** Newest date first, then newest logged; paged by (date, createdAt, id). */
    async listEntries(userId: string, { id: taskId, ...query }: TaskTimeEntriesInput): Promise<Page<TimeEntry>> {
      const { task } = await tasks.loadTask(userId, taskId);
      const limit = pageSize(query.limit);
      const cursor = decodeCursor(query.cursor, [isCalendarDate, cursorChecks.timestamp, cursorChecks.id]);
      const rows = await store.listEntries(db, task.id, cursor, limit + 1);
      return toPage(rows, limit, toTimeEntry, (row) => [row.date, row.createdAt.toISOString(), row.id]);
    },

    /** An entry, for members of its task's project (404 for others, as for unknown ids). */
    async getEntry(userId: string, id: string): Promise<TimeEntry> {
      const found = isId(id) ? await store.findEntry(db, id) : undefined;
      if (!found) throw notFound('Time entry');
      await tasks.loadTask(userId, found.entry.taskId).catch(asEntryNotFound);
      return toTimeEntry(found.entry);
    },

    async updateEntry(userId: string, { id, ...patch }: UpdateTimeEntryInput): Promise<TimeEntry> {
      return inEntryTransaction(userId, id, async (tx, projectId, before) => {
        const set = {
          ...(patch.minutes !== undefined ? { minutes: patch.minutes } : {}),
          ...(patch.date !== undefined ? { date: patch.date } : {}),
          ...(patch.note !== undefined ? { note: patch.note } : {}),
          updatedAt: nextVersion(before.updatedAt),
        };
        const old = toTimeEntry(before);
        const after = toTimeEntry({ ...before, ...set });
        const changes = changedFields(old, after, ['minutes', 'date', 'note']);
        await Promise.all([
          store.updateEntry(tx, before.id, set),
          changes && recordEvent(tx, { projectId, taskId: before.taskId, actorId: userId, type: 'time_entry.updated', resource: after, changes }),
        ]);
        return after;
      });
    },

    async removeEntry(userId: string, id: string): Promise<{ message: string }> {
      await inEntryTransaction(userId, id, async (tx, projectId, entry) => {
        await Promise.all([
          store.deleteEntry(tx, entry.id),
          recordEvent(tx, { projectId, taskId: entry.taskId, actorId: userId, type: 'time_entry.deleted', resource: toTimeEntry(entry) }),
        ]);
      });
      return { message: 'Time entry deleted' };
    },

    /** Starts the caller's timer on a task; a timer running on any task is stopped into an entry first (one timer per user). */
    async startTimer(userId: string, taskId: string): Promise<{ timer: Timer; stopped: TimeEntry | null }> {
      const { access } = await tasks.loadTask(userId, taskId);
      authorize(access, 'time.log');
      const { projectId } = access;
      return db.transaction(async (tx) => {
        await store.lockUserTimer(tx, userId);
        const now = new Date();
        const stopped = await stopRunning(tx, userId, now);
        if (!(await lockScope(tx, { projectId, taskId }))) throw notFound('Task');
        // Checked again under the task's lock: the caller may have lost access meanwhile.
        authorize((await tasks.loadTask(userId, taskId, { tx })).access, 'time.log');
        const row: store.TimerRow = { userId, taskId: taskId.toLowerCase(), startedAt: now };
        await store.insertTimer(tx, row);
        return { timer: toTimer(row), stopped };
      });
    },

    async stopTimer(userId: string): Promise<{ entry: TimeEntry | null }> {
      return db.transaction(async (tx) => {
        await store.lockUserTimer(tx, userId);
        const running = await store.findTimer(tx, userId);
        if (!running) throw notFound('Timer');
        return { entry: await stopRunning(tx, userId, new Date()) };
      });
    },

    /** The caller's running timer, or null; one running over a day is stopped (at a day) here. */
    async currentTimer(userId: string): Promise<Timer | null> {
      const running = await store.findTimer(db, userId);
      if (!running) return null;
      const now = new Date();
      if (now.getTime() - running.timer.startedAt.getTime() < TIMER_MAX_MINUTES * MINUTE) return toTimer(running.timer);
      const stale = running.timer.startedAt.getTime();
      return db.transaction(async (tx) => {
        await store.lockUserTimer(tx, userId);
        // Read again under the lock: the first read may be a replica's, or older than a timer started meanwhile.
        const current = await store.findTimer(tx, userId);
        if (!current) return null;
        if (current.timer.startedAt.getTime() !== stale) return toTimer(current.timer);
        await stopRunning(tx, userId, now);
        return null;
      });
    },

    async report(userId: string, { id: projectId, from, to, groupBy }: TimeReportInput): Promise<TimeReportRow[]> {
      const access = await requireProjectAccess(db, projectId, userId);
      authorize(access, 'project.read');
      return store.report(db, access.projectId, from, to, groupBy);
    },
  };
}

export type TimeTrackingService = ReturnType<typeof createTimeTrackingService>;
