import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDatabase } from '@tasklane/db';
import { RegisterInput } from '@tasklane/schemas';
import { openDatabase } from './app';
import { createPasswordHasher } from './auth/password';
import { createAuthService } from './auth/service';
import { createTokenService } from './auth/tokens';
import { type Config, ConfigError } from './config';

const PG_DUMP_HINT =
  'With DATABASE_URL (PostgreSQL) use its own tools while the service runs:\n' +
  '  pg_dump --format=custom --file=tasklane.dump "$DATABASE_URL"\n' +
  '  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" tasklane.dump';

const pgliteDir = (config: Config) => join(config.dataDir, 'pgdata');

/**
 * `backup <file>`: PGlite's data directory as a .tar.gz. A running server is asked for it
 * (GET /admin/backup with ADMIN_TOKEN) so the dump is consistent while it serves; with the server
 * stopped, the directory is opened and dumped directly.
 */
async function backup(config: Config, file: string): Promise<void> {
  if (config.databaseUrl) throw new ConfigError(PG_DUMP_HINT);
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}/admin/backup`;
  const live = await fetch(url, { headers: { authorization: `Bearer ${config.adminToken ?? ''}` } }).catch(() => undefined);
  if (live?.ok) {
    await writeFile(file, Buffer.from(await live.arrayBuffer()), { mode: 0o600 });
    console.log(`Backup of the running server written to ${file}.`);
    return;
  }
  if (live) throw new ConfigError(`The running server refused the backup (${live.status}): set the same ADMIN_TOKEN as the server.`);
  const database = await openDatabase(config);
  try {
    await writeFile(file, Buffer.from(await (await database.dumpDataDir!('gzip')).arrayBuffer()), { mode: 0o600 });
  } finally {
    await database.close();
  }
  console.log(`Backup of ${pgliteDir(config)} written to ${file}.`);
}

/** `restore <file>`: into an empty PGlite data directory only (stop the server, move the old one away). */
async function restore(config: Config, file: string): Promise<void> {
  if (config.databaseUrl) throw new ConfigError(PG_DUMP_HINT);
  const target = pgliteDir(config);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new ConfigError(`${target} is not empty: stop the server and move it away first, so nothing is overwritten.`);
  }
  const database = await createDatabase({ kind: 'pglite', dataDir: target, loadDataDir: new Blob([await readFile(file)]) });
  await database.migrate();
  await database.close();
  console.log(`Restored ${file} into ${target}.`);
}

/** The password comes from TASKLANE_PASSWORD, never from the command line (shell history, ps). */
function passwordFromEnv(): string {
  const password = process.env.TASKLANE_PASSWORD;
  if (!password) throw new ConfigError('Set TASKLANE_PASSWORD to the password (it is not read from the command line).');
  return password;
}

async function withAuth<T>(config: Config, run: (auth: ReturnType<typeof createAuthService>) => Promise<T>): Promise<T> {
  const database = await openDatabase(config);
  const passwords = createPasswordHasher(config.bcryptCost);
  try {
    return await run(createAuthService(database.db, passwords, createTokenService(config.jwtSecret, config.jwtTtlSeconds)));
  } finally {
    await passwords.close();
    await database.close();
  }
}

export const CLI_COMMANDS = ['backup <file>', 'restore <file>', 'create-user <email> <name>', 'reset-password <email>'];

/** Operator commands besides serve and migrate. On PGlite, all but `backup` need the server stopped. */
export async function runCli(config: Config, command: string, args: string[]): Promise<boolean> {
  const [first, ...rest] = args;
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new ConfigError(`Usage: tasklane ${command} ${what}`);
    return value;
  };
  switch (command) {
    case 'backup':
      await backup(config, need(first, '<file>'));
      return true;
    case 'restore':
      await restore(config, need(first, '<file>'));
      return true;
    case 'create-user': {
      const input = RegisterInput.safeParse({ email: need(first, '<email> <name>'), name: need(rest.join(' '), '<email> <name>'), password: passwordFromEnv() });
      if (!input.success) throw new ConfigError(input.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n'));
      const created = await withAuth(config, (auth) => auth.register(input.data));
      console.log(`Created user ${created.user.email} (${created.user.id}).`);
      return true;
    }
    case 'reset-password': {
      const password = RegisterInput.shape.password.safeParse(passwordFromEnv());
      if (!password.success) throw new ConfigError(`password: ${password.error.issues[0]?.message}`);
      const user = await withAuth(config, (auth) => auth.resetPassword(need(first, '<email>'), password.data));
      console.log(`Password of ${user.email} replaced; their existing tokens no longer work.`);
      return true;
    }
    default:
      return false;
  }
}
