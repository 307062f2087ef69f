/**
 * Every advisory lock key of Tasklane, in one place, so no two uses collide and the order in which
 * they are taken can be read here.
 *
 * Keyed per project, recipient or job by a second key (`hashtext` of the id as the database writes
 * it, lower case) under a first key that names the class.
 */

/** Per project (second key: hashtext of its id): recordEvent, and the task-count trigger of migration 0004 (SQL, which spells it out). */
export const PROJECT_LOCK_CLASS = 7415;
/** Per notification recipient (second key: hashtext of their id): one user's notification `seq`s commit in increasing order. */
export const RECIPIENT_LOCK_CLASS = 7416;
/** The due-reminder job (second key 0): one instance at a time runs it. */
export const REMINDER_LOCK_CLASS = 7417;
/** The event dispatcher (second key 0): one instance at a time dispatches a batch. Tried, never waited for. */
export const DISPATCH_LOCK_CLASS = 7418;
/**
 * Project keys (second key 0): a project's creation and a change of its key claim keys one at a
 * time server-wide, so a key is checked free and claimed (projects store) with no other claim between.
 */
export const PROJECT_KEY_LOCK_CLASS = 7419;
/**
 * Per project (second key: hashtext of its id): a task's move under another parent, so two
 * concurrent moves cannot each pass the ancestor check and build a cycle together (tasks store).
 */
export const TASK_TREE_LOCK_CLASS = 7420;
/**
 * Every `blocks` relation's insertion (second key 0), after its row locks: one at a time, each
 * checks for a cycle with every other `blocks` relation committed, so two inserts that would
 * together close a cycle (A blocks B, B blocks A) cannot both pass the check. Only `blocks`
 * inserts take it, and they are rare; a finer key (per chain) cannot be known before the walk.
 */
export const RELATION_BLOCKS_LOCK_CLASS = 7421;
/**
 * Per project (second key: hashtext of its id): the project's stored files (attachments). An
 * upload's transaction takes it after its row locks and before recordEvent (step 4 below), checks
 * the quota and moves its file to its content key under it, and holds it to its commit; a removal
 * of files (events/attachment-files.ts) takes it in a transaction of its own, alone, and removes
 * only files no committed row names. So a file a committed row names is never removed (the
 * reasoning is in events/attachment-files.ts).
 */
export const ATTACHMENT_FILES_LOCK_CLASS = 7422;
/** A user's timer (time-tracking service): one start or stop of a user's timer at a time, taken first in its transaction. */
export const TIMER_LOCK_CLASS = 7425;
/** Migrations (one key, taken by packages/db's migrate: it cannot import this module). */
export { MIGRATION_LOCK_KEY } from '@tasklane/db';

/*
 * The lock order. Every write inside a project takes its locks in this order, so no two writes
 * (nor a write and the project's deletion) ever wait on each other in a cycle, which PostgreSQL
 * would break by failing one of them ("deadlock detected"):
 *
 *  1. the project's row: FOR KEY SHARE by every write into the project, first in its statement or
 *     transaction (lockedScope, lockScope, lockTaskScope in events/scope.ts); FOR NO KEY UPDATE by
 *     the project's update and ownership transfer; FOR UPDATE by the project's deletion and a
 *     member's removal;
 *  1a. PROJECT_KEY_LOCK_CLASS (a project's creation, before its rows; a key change, after the row);
 *  1b. TASK_TREE_LOCK_CLASS, by a task update that sets a parent;
 *  2. state rows (project_states: a task write locks the state it sets FOR KEY SHARE; a change of
 *     the project's states locks them all FOR NO KEY UPDATE, a state's deletion its own FOR UPDATE
 *     after that, then moves its tasks), then label rows (a task write naming labels locks them FOR
 *     KEY SHARE; a label's update and deletion);
 *  2a. a new parent's row FOR KEY SHARE (a task write naming a parent); a task's deletion locks its
 *     row FOR UPDATE, then its subtasks' rows to detach them: a parent's row comes before its
 *     subtasks' rows everywhere;
 *  2b. the project's row FOR NO KEY UPDATE by a task's creation (its number: projects.next_task_number),
 *     an upgrade from its FOR KEY SHARE that waits for no other write's KEY SHARE;
 *  3. the task's row: FOR KEY SHARE by a write that only needs the task to stay (lockedScope), FOR
 *     NO KEY UPDATE from the start by one that will update the row: the task's own write, and a
 *     comment's insertion or deletion (the count trigger of migration 0006; events/scope.ts
 *     TaskLock), so no write waits for the task's row while it holds a lock on it;
 *  4. the write's other rows: a comment, a membership, a webhook, a task relation (whose other
 *     task's project and row, FOR KEY SHARE, come after the path task's, as a second lockTaskScope);
 *     then, for a `blocks` relation's insertion, RELATION_BLOCKS_LOCK_CLASS; for an attachment's
 *     upload, ATTACHMENT_FILES_LOCK_CLASS (taken alone, with no other lock, by the removal of files);
 *  5. the project's advisory lock, PROJECT_LOCK_CLASS: recordEvent, the last statement of every
 *     write's transaction, so it is held only from the event's insert to the commit (the task-count
 *     trigger of migration 0004 takes it at a task's insert or deletion, later in that transaction
 *     than every row lock of the write).
 *
 * The work derived from the events (events/dispatcher.ts) runs after the write's commit, in a
 * transaction of its own that takes, in this order: DISPATCH_LOCK_CLASS (tried: one dispatcher at a
 * time), the rows of the project's webhooks FOR KEY SHARE (a webhook deleted meanwhile gets no
 * delivery, rather than failing the batch on its foreign key), the rows of the event's project,
 * task and comment FOR KEY SHARE (so the notifications' foreign keys hold; gone, they get none),
 * then RECIPIENT_LOCK_CLASS in the order of their keys. It holds no lock a write waits for except
 * those row locks, and takes no lock a write holds while it waits, so it cannot be in a cycle with
 * one. The due-reminder job takes REMINDER_LOCK_CLASS, task rows, then RECIPIENT_LOCK_CLASS.
 *
 * The project's deletion holds its row FOR UPDATE before anything else: it waits for the writes in
 * flight there, and a write that comes later waits for the deletion, then finds the row gone and
 * writes nothing, so its caller answers 404, as when it came after the deletion. For the same
 * reason a row is only inserted under a locked parent, and no foreign key fails. A write that holds
 * a single row and takes no other lock (a watcher, a notification marked read) cannot be in a cycle.
 */
