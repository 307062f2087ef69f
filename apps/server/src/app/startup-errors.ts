import { CliError } from './cli-error';
import { ConfigError } from '../platform/config';
import { DomainError } from '../platform/errors';
import { findCode } from '../platform/db-errors';

type SystemError = NodeJS.ErrnoException & { address?: string; port?: number };

/** What a file-system refusal means for the operator. */
const FILE_PROBLEMS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a file stands where a directory should be',
  EEXIST: 'a file stands where a directory should be',
  ENOSPC: 'no space left on the device',
};

/** PostgreSQL's refusals at connection time (SQLSTATE), and what to change. */
const POSTGRES_PROBLEMS: Record<string, string> = {
  '3D000': 'create it (createdb), or correct the database name in DATABASE_URL',
  '28P01': 'correct the user or password in DATABASE_URL',
  '28000': 'correct the user in DATABASE_URL, or allow it in pg_hba.conf',
};

/** Socket errors while connecting to PostgreSQL, and what to change. */
const CONNECTION_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'refused the connection: start PostgreSQL, or correct the host and port in DATABASE_URL',
  ENOTFOUND: 'is not a known host name: correct the host in DATABASE_URL',
  EHOSTUNREACH: 'cannot be reached: check the network, or correct the host in DATABASE_URL',
  CONNECT_TIMEOUT: 'did not answer in time: check that PostgreSQL runs and the network lets it through',
};

/**
 * The one line an operator reads when a command or the server cannot start for a reason of theirs
 * (a setting, a busy port, a database missing or refusing, a directory it may not write), naming
 * the problem and the fix; undefined for anything else, which is a bug and keeps its stack.
 */
export function operatorMessage(error: unknown): string | undefined {
  if (error instanceof ConfigError || error instanceof CliError || error instanceof DomainError) return error.message;
  const system = error as SystemError;
  if (system?.syscall === 'listen' && system.code === 'EADDRINUSE') {
    return `Port ${system.port} on ${system.address} is already in use (another Tasklane, or another program): stop it, or set PORT to a free port.`;
  }
  if (system?.syscall === 'listen' && (system.code === 'EACCES' || system.code === 'EADDRNOTAVAIL')) {
    return `Cannot listen on ${system.address}:${system.port} (${system.code}): set HOST to an address of this machine and PORT to 1024 or above.`;
  }
  if (system?.path && system.code && FILE_PROBLEMS[system.code]) {
    return `Cannot write ${system.path} (${system.code}: ${FILE_PROBLEMS[system.code]}): set DATA_DIR to a directory this user may write.`;
  }
  const sqlState = findCode(error, (code) => code in POSTGRES_PROBLEMS);
  if (sqlState) return `PostgreSQL refused: ${(error as Error).message} (${sqlState}): ${POSTGRES_PROBLEMS[sqlState]}.`;
  const connection = findCode(error, (code) => code in CONNECTION_PROBLEMS);
  if (connection) {
    const where = system.address ? `${system.address}:${system.port}` : 'the host of DATABASE_URL';
    return `PostgreSQL at ${where} ${CONNECTION_PROBLEMS[connection]}.`;
  }
  return undefined;
}
