import { attachments, comments, type Db, projects, taskRelations, tasks, timeEntries, users } from '@tasklane/db';
import { and, asc, eq, gt, inArray } from 'drizzle-orm';

/**
 * The export's reads of a page of tasks' comments, relations, time entries and attachments, and of
 * what one user wrote: one statement per kind and page (never one per task), each on an index that
 * starts with the task (or, for a user, read in id order after a cursor: keyset, never OFFSET).
 * Only for exports, which have checked the caller's access to the whole project (or are the user).
 */

export const commentsOfTasks = (db: Db, taskIds: readonly string[]) =>
  db
    .select({
      id: comments.id,
      taskId: comments.taskId,
      authorId: comments.authorId,
      authorName: users.name,
      text: comments.text,
      mentionIds: comments.mentionIds,
      createdAt: comments.createdAt,
      updatedAt: comments.updatedAt,
    })
    .from(comments)
    .innerJoin(users, eq(users.id, comments.authorId))
    .where(inArray(comments.taskId, [...taskIds]))
    .orderBy(asc(comments.taskId), asc(comments.createdAt), asc(comments.id));

/** The relations whose source is one of the tasks (each relation once: an incoming one is its source's). */
export const relationsFromTasks = (db: Db, taskIds: readonly string[]) =>
  db
    .select({
      id: taskRelations.id,
      type: taskRelations.type,
      taskId: taskRelations.taskId,
      relatedTaskId: taskRelations.relatedTaskId,
      relatedProjectId: tasks.projectId,
      createdById: taskRelations.createdBy,
      createdAt: taskRelations.createdAt,
    })
    .from(taskRelations)
    .innerJoin(tasks, eq(tasks.id, taskRelations.relatedTaskId))
    .where(inArray(taskRelations.taskId, [...taskIds]))
    .orderBy(asc(taskRelations.taskId), asc(taskRelations.createdAt), asc(taskRelations.id));

export const timeEntriesOfTasks = (db: Db, taskIds: readonly string[]) =>
  db
    .select({
      id: timeEntries.id,
      taskId: timeEntries.taskId,
      userId: timeEntries.userId,
      minutes: timeEntries.minutes,
      date: timeEntries.date,
      note: timeEntries.note,
      createdAt: timeEntries.createdAt,
      updatedAt: timeEntries.updatedAt,
    })
    .from(timeEntries)
    .where(inArray(timeEntries.taskId, [...taskIds]))
    .orderBy(asc(timeEntries.taskId), asc(timeEntries.createdAt), asc(timeEntries.id));

/** The files' metadata (never their bytes). */
export const attachmentsOfTasks = (db: Db, taskIds: readonly string[]) =>
  db
    .select({
      id: attachments.id,
      taskId: attachments.taskId,
      commentId: attachments.commentId,
      filename: attachments.filename,
      contentType: attachments.contentType,
      size: attachments.size,
      sha256: attachments.sha256,
      uploaderId: attachments.uploaderId,
      createdAt: attachments.createdAt,
    })
    .from(attachments)
    .where(inArray(attachments.taskId, [...taskIds]))
    .orderBy(asc(attachments.taskId), asc(attachments.createdAt), asc(attachments.id));

/** A page of the comments a user wrote, in id (creation) order after `afterId`, with where they are. */
export const commentsByAuthor = (db: Db, userId: string, afterId: string | undefined, limit: number) =>
  db
    .select({
      id: comments.id,
      projectId: tasks.projectId,
      projectName: projects.name,
      projectKey: projects.key,
      taskId: comments.taskId,
      taskNumber: tasks.number,
      text: comments.text,
      mentionIds: comments.mentionIds,
      createdAt: comments.createdAt,
      updatedAt: comments.updatedAt,
    })
    .from(comments)
    .innerJoin(tasks, eq(tasks.id, comments.taskId))
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(and(eq(comments.authorId, userId), afterId ? gt(comments.id, afterId) : undefined))
    .orderBy(asc(comments.id))
    .limit(limit);

/** A page of a user's time entries, in id (creation) order after `afterId`, with where they are. */
export const timeEntriesOfUser = (db: Db, userId: string, afterId: string | undefined, limit: number) =>
  db
    .select({
      id: timeEntries.id,
      projectId: tasks.projectId,
      projectName: projects.name,
      projectKey: projects.key,
      taskId: timeEntries.taskId,
      minutes: timeEntries.minutes,
      date: timeEntries.date,
      note: timeEntries.note,
      createdAt: timeEntries.createdAt,
      updatedAt: timeEntries.updatedAt,
    })
    .from(timeEntries)
    .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(and(eq(timeEntries.userId, userId), afterId ? gt(timeEntries.id, afterId) : undefined))
    .orderBy(asc(timeEntries.id))
    .limit(limit);
