import { parseArgs } from 'node:util';
import { openDatabase } from './app';
import { createPasswordHasher } from '../resources/auth/password';
import { createAuthService } from '../resources/auth/service';
import { createTokenService } from '../resources/credentials/tokens';
import { backup, restore } from './backup';
import { CliError } from './cli-error';
import type { Config } from '../platform/config';
import { OPERATOR_COMMANDS, type OperatorCommand } from '../transport/operator/commands';
import { askRunningServer, jsonOf } from './operator-client';

interface Command {
  /** Positional arguments; a name ending in `...` takes the rest. */
  args: string[];
  summary: string;
}

/** Every command of `tasklane`; `serve` and `migrate` are run by main.ts, the rest by runCommand. */
export const COMMANDS: Record<string, Command> = {
  serve: { args: [], summary: 'run the server (the default command)' },
  migrate: { args: [], summary: 'apply pending database migrations and exit' },
  backup: { args: ['<file>'], summary: 'write the PGlite database to <file> as a checked .tar.gz (asks the running server when one runs)' },
  restore: { args: ['<file>'], summary: 'restore a backup into an empty PGlite data directory (server stopped)' },
  'create-user': { args: ['<email>', '<name>...'], summary: 'create an account; the password comes from TASKLANE_PASSWORD' },
  'reset-password': { args: ['<email>'], summary: "replace a user's password from TASKLANE_PASSWORD and sign every session of theirs out" },
};

const usageLine = (name: string) => `tasklane ${name}${COMMANDS[name]!.args.map((arg) => ` ${arg}`).join('')}`;

export function usage(command?: string): string {
  if (command) {
    return [
      `Usage: ${usageLine(command)} [--help]`,
      '',
      `  ${COMMANDS[command]!.summary}`,
      '',
      'Settings come from the environment (docs/operations.md): DATA_DIR, DATABASE_URL, PORT, ADMIN_TOKEN, ...',
    ].join('\n');
  }
  const width = Math.max(...Object.keys(COMMANDS).map((name) => usageLine(name).length));
  return [
    'Usage: tasklane [command] [arguments] [--help]',
    '',
    'Commands:',
    ...Object.keys(COMMANDS).map((name) => `  ${usageLine(name).padEnd(width)}  ${COMMANDS[name]!.summary}`),
    '',
    'Options:',
    '  -h, --help     print this help (or a command\'s: tasklane <command> --help) and exit',
    '  -v, --version  print the version and exit',
    '',
    'Settings come from the environment (docs/operations.md).',
  ].join('\n');
}

export type Invocation =
  | { kind: 'run'; command: string; args: string[] }
  /** Printed to stdout, exit 0. */
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  /** Printed to stderr with the usage, exit 2. */
  | { kind: 'usage-error'; message: string; text: string };

/** The command line, read by node:util's parseArgs; nothing is run or configured here. */
export function parseCommandLine(argv: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
    });
  } catch (error) {
    const command = argv.find((arg) => Object.hasOwn(COMMANDS, arg));
    // Node's message goes on to explain `--`; its first sentence names the option.
    return { kind: 'usage-error', message: `${(error as Error).message.split('. ')[0]}.`, text: usage(command) };
  }
  const [first, ...rest] = parsed.positionals;
  const name = first === 'help' ? rest[0] : first;
  if (name !== undefined && !Object.hasOwn(COMMANDS, name)) {
    return { kind: 'usage-error', message: `Unknown command "${name}".`, text: usage() };
  }
  if (parsed.values.help || first === 'help') return { kind: 'help', text: usage(name) };
  if (parsed.values.version) return { kind: 'version' };
  const command = name ?? 'serve';
  const spec = COMMANDS[command]!.args;
  const takesRest = spec.at(-1)?.endsWith('...') ?? false;
  if (rest.length < spec.length || (!takesRest && rest.length > spec.length)) {
    return { kind: 'usage-error', message: `${command} takes ${spec.join(' ') || 'no arguments'}.`, text: usage(command) };
  }
  return { kind: 'run', command, args: rest };
}

/** The password comes from TASKLANE_PASSWORD, never from the command line (shell history, ps). */
function passwordFromEnv(): string {
  const password = process.env.TASKLANE_PASSWORD;
  if (!password) throw new CliError('Set TASKLANE_PASSWORD to the password (it is not read from the command line).');
  return password;
}

/**
 * create-user and reset-password: by the server running on DATA_DIR when one runs (its operator
 * socket), so it sees the change at once; else on the database opened here (on PGlite, locked).
 */
async function runOperatorCommand(config: Config, command: OperatorCommand, input: unknown): Promise<string> {
  const answer = config.databaseUrl ? undefined : await askRunningServer(config.dataDir, `/${command}`, input);
  if (answer) {
    const { message } = await jsonOf(answer);
    if (answer.statusCode !== 200) throw new CliError(message ?? `the running server answered ${answer.statusCode}`);
    return message ?? '';
  }
  const database = await openDatabase(config, command);
  const passwords = createPasswordHasher(config.bcryptCost);
  try {
    const auth = createAuthService(database.db, passwords, createTokenService(config.jwtSecret, config.jwtTtlSeconds));
    return await OPERATOR_COMMANDS[command](auth, input);
  } finally {
    await passwords.close();
    await database.close();
  }
}

/** Operator commands besides serve and migrate; returns what to print. */
export async function runCommand(config: Config, command: string, args: string[]): Promise<string> {
  const [first = '', ...rest] = args;
  switch (command) {
    case 'backup':
      return backup(config, first);
    case 'restore':
      return restore(config, first);
    case 'create-user':
      return runOperatorCommand(config, command, { email: first, name: rest.join(' '), password: passwordFromEnv() });
    case 'reset-password':
      return runOperatorCommand(config, command, { email: first, password: passwordFromEnv() });
    default:
      throw new Error(`no runner for the command ${command}`);
  }
}
