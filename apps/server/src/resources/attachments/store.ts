import { attachments, type Db } from '@tasklane/db';
import { asc, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/sql';

export type AttachmentRow = typeof attachments.$inferSelect;

export const insertAttachment = (db: Db, row: AttachmentRow) => db.insert(attachments).values(row).execute();

export const deleteAttachment = (db: Db, id: string) => db.delete(attachments).where(eq(attachments.id, id)).execute();

/** An attachment by id; `lock` holds its row FOR UPDATE to the end of the caller's transaction. */
export const findAttachment = async (db: Db, id: string, options: { lock?: boolean } = {}): Promise<AttachmentRow | undefined> => {
  const query = db.select().from(attachments).where(eq(attachments.id, id)).limit(1);
  return (await (options.lock ? query.for('update') : query).execute())[0];
};

/** A task's attachments, oldest first (attachments_task_idx). */
export const listAttachments = (db: Db, taskId: string): Promise<AttachmentRow[]> =>
  db.select().from(attachments).where(eq(attachments.taskId, taskId)).orderBy(asc(attachments.createdAt), asc(attachments.id)).execute();

/**
 * The project's bytes in use, each blob counted once, and whether a row already names `sha256`
 * (whose bytes then cost nothing more): read under the project's files lock by an upload.
 */
export async function projectUsage(db: Db, projectId: string, sha256: string): Promise<{ bytes: number; named: boolean }> {
  const [row] = rowsOf<{ bytes: number; named: boolean }>(
    await db.execute(sql`
      select
        coalesce((select sum(blob.size) from (select distinct on (sha256) size from ${attachments} where project_id = ${projectId}::uuid) as blob), 0)::float8 as bytes,
        exists (select 1 from ${attachments} where project_id = ${projectId}::uuid and sha256 = ${sha256}) as named`),
  );
  return { bytes: Number(row?.bytes ?? 0), named: row?.named === true };
}
