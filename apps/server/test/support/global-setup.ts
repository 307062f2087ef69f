import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@tasklane/db';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

const PREFIX = 'tasklane-template-';

/** Whether a process runs with this id (signal 0 only asks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Templates of runs that ended without their teardown (killed), directories or .tar files named after their process, which is gone. Live runs keep theirs. */
async function removeAbandonedTemplates(): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)[-.]`).exec(name)?.[1]);
    if (pid && !isRunning(pid)) await rm(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/**
 * Migrates one PGlite database and saves it, so each test file clones it instead of migrating (~3 s).
 * It lives in a directory of its own, named after this process, that the teardown removes.
 */
export default async function setup(project: TestProject) {
  await removeAbandonedTemplates();
  const database = await createDatabase({ kind: 'pglite' });
  await database.migrate();
  const dump = await database.dumpDataDir!();
  await database.close();
  const dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
  const file = join(dir, 'template.tar');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => rm(dir, { recursive: true, force: true });
}
