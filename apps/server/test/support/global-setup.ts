import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@tasklane/db';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

/** Migrates one PGlite database and saves it, so each test file clones it instead of migrating (~3 s). */
export default async function setup(project: TestProject) {
  const database = await createDatabase({ kind: 'pglite' });
  await database.migrate();
  const dump = await database.dumpDataDir!();
  await database.close();
  const file = join(tmpdir(), `tasklane-template-${process.pid}.tar`);
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
}
