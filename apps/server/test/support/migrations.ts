import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { migrationsFolder } from '@tasklane/db';
import postgres from 'postgres';
import { freshPostgresDatabase } from './harness';

/** A bare database of the test's engine (TEST_DB), for a migration's test to build up step by step. */
export interface Connection {
  run(statement: string): Promise<void>;
  rows<T>(query: string): Promise<T[]>;
  close(): Promise<void>;
}

export async function connect(): Promise<Connection> {
  if (process.env.TEST_DB === 'postgres') {
    const fresh = await freshPostgresDatabase();
    const client = postgres(fresh.url(Number(new URL(process.env.TEST_DATABASE_URL!).port || 5432)), { max: 1, onnotice: () => {} });
    return {
      run: async (statement) => void (await client.unsafe(statement)),
      rows: async <T>(query: string) => (await client.unsafe(query)) as unknown as T[],
      close: async () => {
        await client.end();
        await fresh.drop();
      },
    };
  }
  const client = await PGlite.create({ extensions: { pg_trgm } });
  return {
    run: async (statement) => void (await client.exec(statement)),
    rows: async <T>(query: string) => (await client.query<T>(query)).rows,
    close: () => client.close(),
  };
}

/** Applies the journal's migrations that `which` selects, statement by statement, as the migrator does. */
export async function applyMigrations(db: Connection, which: (idx: number) => boolean) {
  const journal = JSON.parse(await readFile(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: { idx: number; tag: string }[] };
  for (const entry of journal.entries.filter((candidate) => which(candidate.idx))) {
    const text = await readFile(join(migrationsFolder, `${entry.tag}.sql`), 'utf8');
    for (const statement of text.split('--> statement-breakpoint')) if (statement.trim()) await db.run(statement);
  }
}

