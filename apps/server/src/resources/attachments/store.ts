import { attachments, type Db, projects, projectStorage } from '@tasklane/db';
import { asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { callerRoleIn } from '../policy/access';
import { lockedScope } from '../../events/scope';
import { rowsOf } from '../../platform/sql';

export type AttachmentRow = typeof attachments.$inferSelect;

export const insertAttachment = (db: Db, row: AttachmentRow) => db.insert(attachments).values(row).execute();

export const deleteAttachment = (db: Db, id: string) => db.delete(attachments).where(eq(attachments.id, id)).execute();

/** An attachment by id; `lock` holds its row FOR UPDATE to the end of the caller's transaction. */
export const findAttachment = async (db: Db, id: string, options: { lock?: boolean } = {}): Promise<AttachmentRow | undefined> => {
  const query = db.select().from(attachments).where(eq(attachments.id, id)).limit(1);
  return (await (options.lock ? query.for('update') : query).execute())[0];
};

/**
 * An attachment with the caller's role in its project and the project's owner, in one statement
 * (the role and the owner as scalar subqueries, which `lock`'s FOR UPDATE leaves unlocked): the
 * access check of a read or a download, without reading its task.
 */
export const findAttachmentForUser = async (db: Db, id: string, userId: string, options: { lock?: boolean } = {}) => {
  const query = db
    .select({
      row: getTableColumns(attachments),
      role: callerRoleIn(sql.raw('"attachments"."project_id"'), userId),
      ownerId: sql<string>`(select ${projects.ownerId} from ${projects} where ${projects.id} = "attachments"."project_id")`,
    })
    .from(attachments)
    .where(eq(attachments.id, id))
    .limit(1);
  return (await (options.lock ? query.for('update') : query).execute())[0];
};

/** A task's attachments, oldest first (attachments_task_idx). */
export const listAttachments = (db: Db, taskId: string): Promise<AttachmentRow[]> =>
  db.select().from(attachments).where(eq(attachments.taskId, taskId)).orderBy(asc(attachments.createdAt), asc(attachments.id)).execute();

/**
 * The project's bytes in use, each blob counted once (project_storage, kept by migration 0018's
 * triggers under this same lock), and whether a row already names `sha256` (whose bytes then cost
 * nothing more): read under the project's files lock by an upload.
 */
export async function projectUsage(db: Db, projectId: string, sha256: string): Promise<{ bytes: number; named: boolean }> {
  const [row] = rowsOf<{ bytes: number; named: boolean }>(
    await db.execute(sql`
      select
        coalesce((select ${projectStorage.bytes} from ${projectStorage} where ${projectStorage.projectId} = ${projectId}::uuid), 0)::float8 as bytes,
        exists (select 1 from ${attachments} where ${attachments.projectId} = ${projectId}::uuid and ${attachments.sha256} = ${sha256}) as named`),
  );
  return { bytes: Number(row?.bytes ?? 0), named: row?.named === true };
}


/**
 * An attachment's write's first statement (as events/scope.ts lockTaskScope for a task): its
 * project and task read from its row, then lockedScope's locks in their order (the project's row,
 * the task's, FOR KEY SHARE). The read takes no lock (an attachment never changes task or project);
 * the caller then locks the row itself and checks it again. The scope; undefined when the
 * attachment, its task or its project is gone.
 */
export async function lockAttachmentScope(db: Db, id: string): Promise<{ projectId: string; taskId: string } | undefined> {
  const held = lockedScope({ projectId: sql`found.project_id`, taskId: sql`found.task_id` });
  const [row] = rowsOf<{ projectId: string; taskId: string; held: boolean }>(
    await db.execute(sql`select found.project_id as "projectId", found.task_id as "taskId", ${held} as held from ${attachments} as found where found.id = ${id}::uuid`),
  );
  return row?.held === true ? { projectId: row.projectId, taskId: row.taskId } : undefined;
}
