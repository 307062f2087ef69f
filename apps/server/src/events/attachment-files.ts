import { attachments, type Db, imports } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { and, eq, inArray } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import { ATTACHMENT_FILES_LOCK_CLASS } from '../platform/locks';
import { type BlobStore, contentKey, IMPORT_PREFIX, isBlobKey, TEMPORARY_PREFIX, thumbnailKey } from '../platform/storage';

/*
 * Why a file a committed row names is never removed.
 *
 * An attachment's bytes are the blob `<projectId>/<sha256>` (and its preview `….thumb`), shared by
 * every row of the project with that sha256. Two kinds of work touch a project's blobs, and both
 * hold the project's ATTACHMENT_FILES_LOCK_CLASS lock while they do:
 *
 *  - an upload (resources/attachments/service.ts) streams its bytes to a temporary key first
 *    (no lock: a temporary key is its own), then, in the transaction that inserts its row, takes
 *    the lock, moves the temporary file to the content key, and keeps the lock until that
 *    transaction commits or rolls back;
 *  - a removal (removeUnnamedFiles below) takes the lock in a transaction of its own, then asks
 *    which of its sha256s any row names, and removes the blobs of the others.
 *
 * Every deletion of attachment rows takes it too (migration 0018's count of the project's bytes,
 * and a task's deletion before its cascade: filesOfDeletedTask), so that count sees every
 * committed row; a deletion only ever makes a removal keep less, which the reasoning below allows.
 *
 * The removal's question is a statement after the lock, so under READ COMMITTED it sees every
 * transaction committed before it got the lock. An upload holding the lock is either (a) before
 * it: then the removal waits for the upload's commit and sees its row, and keeps the blob; or, if
 * the upload rolled back, sees no row and removes a blob no row names (right); or (b) after it:
 * the removal removes the blob (if no committed row names it) and releases the lock before the
 * upload moves its own copy of the same bytes into place. PostgreSQL makes a commit visible before
 * it releases the transaction's locks, so there is no moment in which the lock is free and the
 * row not yet seen. Rows are only ever deleted (never rewritten to name other bytes), so "no
 * committed row names it" stays true once seen, except through a new upload, which takes the lock.
 *
 * The cost: a crash between an upload's move and its commit, or between a deletion's commit and
 * its removal (which runs after the commit: removeFilesOfEvents), leaves a blob no row names. The
 * sweep (sweepFiles) finds such blobs by listing the store and removes them through the same
 * locked check, so it never removes a blob a row names either.
 */

/** In a transaction: the project's files lock, to its end. */
export async function lockAttachmentFiles(tx: Db, projectId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ATTACHMENT_FILES_LOCK_CLASS}, hashtext(${projectId}::uuid::text))`);
}

/**
 * In a task's deletion, under its row's FOR UPDATE (which keeps uploads and removals of its
 * attachments out): the distinct sha256s of its attachments, for its `task.deleted` event
 * (`attachmentSha256s`), so that the removal after the commit checks only those; and, when it has
 * any, the project's files lock, taken here before the cascade's own (migration 0018's count) so
 * the lock order holds: the files lock before recordEvent's project lock (platform/locks.ts).
 */
export async function filesOfDeletedTask(tx: Db, projectId: string, taskId: string): Promise<string[]> {
  const rows = await tx.selectDistinct({ sha256: attachments.sha256 }).from(attachments).where(eq(attachments.taskId, taskId));
  if (rows.length > 0) await lockAttachmentFiles(tx, projectId);
  return rows.map((row) => row.sha256).sort();
}

/** Checked per this many sha256s (one statement each). */
const CHECK_BATCH = 500;

/** Removes the blobs (and previews) of `sha256s` in the project that no committed row names. How many were removed. */
export async function removeUnnamedFiles(db: Db, files: BlobStore, projectId: string, sha256s: readonly string[]): Promise<number> {
  let removed = 0;
  const unique = [...new Set(sha256s)];
  for (let start = 0; start < unique.length; start += CHECK_BATCH) {
    const batch = unique.slice(start, start + CHECK_BATCH);
    removed += await db.transaction(async (tx) => {
      await lockAttachmentFiles(tx, projectId);
      const named = await tx
        .selectDistinct({ sha256: attachments.sha256 })
        .from(attachments)
        .where(and(eq(attachments.projectId, projectId), inArray(attachments.sha256, batch)));
      const kept = new Set(named.map((row) => row.sha256));
      const unnamed = batch.filter((sha256) => !kept.has(sha256));
      // Removed while the lock is held: no upload can move these bytes back meanwhile.
      await files.remove(unnamed.flatMap((sha256) => [contentKey(projectId, sha256), thumbnailKey(projectId, sha256)]));
      return unnamed.length;
    });
  }
  return removed;
}

/** The sha256s of the project's stored blobs (previews included), from the store's listing. */
async function storedSha256s(files: BlobStore, projectId: string): Promise<string[]> {
  const found = new Set<string>();
  for await (const { key } of files.list(`${projectId.toLowerCase()}/`)) {
    if (isBlobKey(key)) found.add(key.slice(key.indexOf('/') + 1).replace(/\.thumb$/, ''));
  }
  return [...found];
}

/**
 * The files of attachments deleted by a batch of dispatched events, removed after their commit
 * (events/dispatcher.ts): an attachment's deletion names its blob, a task's deletion the blobs of
 * its attachments (`attachmentSha256s`, filesOfDeletedTask); a project's deletion removed its rows
 * by cascade without naming them, so the project's stored blobs are listed (and so are they for a
 * task's deletion recorded before its event named them). Each is still kept while any row names it.
 */
export async function removeFilesOfEvents(db: Db, files: BlobStore, events: readonly Activity[]): Promise<void> {
  const named = new Map<string, Set<string>>();
  const wholeProjects = new Set<string>();
  const name = (projectId: string, sha256s: readonly unknown[]) => {
    const set = named.get(projectId) ?? new Set<string>();
    for (const sha256 of sha256s) if (typeof sha256 === 'string') set.add(sha256);
    named.set(projectId, set);
  };
  for (const event of events) {
    if (event.type === 'attachment.deleted') {
      name(event.projectId, [event.resource.sha256]);
    } else if (event.type === 'task.deleted' && Array.isArray(event.resource.attachmentSha256s)) {
      name(event.projectId, event.resource.attachmentSha256s);
    } else if (event.type === 'task.deleted' || event.type === 'project.deleted') {
      wholeProjects.add(event.projectId);
    }
  }
  for (const projectId of wholeProjects) {
    await removeUnnamedFiles(db, files, projectId, await storedSha256s(files, projectId));
    named.delete(projectId);
  }
  for (const [projectId, sha256s] of named) if (sha256s.size > 0) await removeUnnamedFiles(db, files, projectId, [...sha256s]);
}

/**
 * The sweep: every blob of the store that no row names (left by a crash between a commit and its
 * file work), and every temporary upload older than `temporaryMaxAgeMs` (an upload that never
 * finished; one under way writes its temporary file for less than that). Never a blob a row names:
 * each is checked under its project's lock (removeUnnamedFiles).
 */
export async function sweepFiles(db: Db, files: BlobStore, options: { temporaryMaxAgeMs: number; now?: Date }): Promise<{ removedBlobs: number; removedTemporaries: number }> {
  const now = (options.now ?? new Date()).getTime();
  const byProject = new Map<string, Set<string>>();
  const staleTemporaries: string[] = [];
  const oldImportFiles = new Map<string, string>();
  for await (const { key, modified } of files.list()) {
    // Only the store's own keys: anything else in the directory or bucket is left alone.
    if (!isBlobKey(key)) continue;
    if (key.startsWith(TEMPORARY_PREFIX)) {
      if (now - modified.getTime() > options.temporaryMaxAgeMs) staleTemporaries.push(key);
      continue;
    }
    if (key.startsWith(IMPORT_PREFIX)) {
      // Old enough that its upload's transaction is long over: kept only while its import waits or runs.
      if (now - modified.getTime() > options.temporaryMaxAgeMs) oldImportFiles.set(key.slice(IMPORT_PREFIX.length), key);
      continue;
    }
    const [projectId, name] = key.split('/') as [string, string];
    const set = byProject.get(projectId) ?? new Set<string>();
    set.add(name.replace(/\.thumb$/, ''));
    byProject.set(projectId, set);
  }
  await files.remove(staleTemporaries);
  // A file of an import that ended (removed after its end's commit, unless the process stopped first) or whose row never committed.
  const waiting = new Set<string>();
  const ids = [...oldImportFiles.keys()];
  for (let start = 0; start < ids.length; start += CHECK_BATCH) {
    const rows = await db.select({ id: imports.id }).from(imports).where(and(inArray(imports.id, ids.slice(start, start + CHECK_BATCH)), inArray(imports.status, ['pending', 'running'])));
    for (const row of rows) waiting.add(row.id.toLowerCase());
  }
  const endedImports = [...oldImportFiles].filter(([id]) => !waiting.has(id)).map(([, key]) => key);
  await files.remove(endedImports);
  let removedBlobs = endedImports.length;
  for (const [projectId, sha256s] of byProject) removedBlobs += await removeUnnamedFiles(db, files, projectId, [...sha256s]);
  return { removedBlobs, removedTemporaries: staleTemporaries.length };
}
