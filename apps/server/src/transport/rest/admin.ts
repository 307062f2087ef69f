import { timingSafeEqual } from 'node:crypto';
import type { Database } from '@tasklane/db';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { backupArchive, type BackupArchiveOptions } from '../../platform/backup-archive';
import { errorBody } from './rest-errors';

const sameSecret = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/**
 * `GET /admin/backup` (PGlite only, and only when ADMIN_TOKEN is set): a consistent copy of the
 * live data directory. PGlite runs one statement at a time, so the dump is taken between
 * transactions while the server keeps serving; `tasklane backup` calls it.
 */
export function registerAdminRoutes(app: FastifyInstance, database: Database, adminToken: string | undefined, files: BackupArchiveOptions): void {
  const dump = database.dumpDataDir;
  if (!adminToken || !dump) return;
  app.get('/admin/backup', async (request, reply) => {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!sameSecret(given, adminToken)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send(errorBody(401, 'Admin token required'));
    }
    return sendBackup(reply, dump, files);
  });
}

/** Says whether the attachment files are in the archive (`local`) or in a bucket left out of it (`bucket`). */
export const FILES_HEADER = 'tasklane-files';

/**
 * The live data directory and the local attachment files as one gzip tar archive
 * (platform/backup-archive.ts), streamed, as both GET /admin/backup and the operator channel send it.
 */
export async function sendBackup(reply: FastifyReply, dump: NonNullable<Database['dumpDataDir']>, files: BackupArchiveOptions) {
  const databaseTar = await dump('none');
  return reply
    .header('content-type', 'application/gzip')
    .header('content-disposition', 'attachment; filename="tasklane-backup.tar.gz"')
    .header('cache-control', 'no-store')
    .header(FILES_HEADER, files.filesDir ? 'local' : 'bucket')
    .send(backupArchive(databaseTar, files));
}
