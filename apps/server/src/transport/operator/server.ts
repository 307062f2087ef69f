import { chmod, rm } from 'node:fs/promises';
import type { Database } from '@tasklane/db';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import Fastify, { type FastifyBaseLogger, type FastifyError, LogController } from 'fastify';
import type { AuthService } from '../../resources/auth/service';
import { DomainError } from '../../platform/errors';
import { OPERATOR_COMMANDS, type OperatorCommand } from './commands';
import type { BackupArchiveOptions } from '../../platform/backup-archive';
import { sendBackup } from '../rest/admin';
import { errorBody, fastifyErrorToBody } from '../rest/rest-errors';

export interface OperatorChannel {
  /** No socket path (DATA_DIR's is too long for one): the channel stays closed, saying so in the log. */
  listen(socketPath: string | undefined): Promise<void>;
  close(): Promise<void>;
}

/**
 * The running PGlite server's answer to `tasklane backup`, `create-user` and `reset-password`:
 * HTTP on a UNIX socket in DATA_DIR, mode 0600, so only the machine's owner of the data (and root)
 * reaches it, never the network, and no token is needed. PGlite admits one process per data
 * directory, so these commands must run inside the server while it runs.
 */
export function createOperatorChannel(
  { auth, dump, files }: { auth: AuthService; dump: NonNullable<Database['dumpDataDir']>; files: BackupArchiveOptions },
  log: FastifyBaseLogger,
): OperatorChannel {
  // Requests are not logged: their bodies hold passwords, and a command's line is its own record.
  const channel = Fastify({ loggerInstance: log.child({ channel: 'operator' }), logController: new LogController({ disableRequestLogging: true }) });
  channel.get('/backup', (_request, reply) => sendBackup(reply, dump, files));
  for (const command of Object.keys(OPERATOR_COMMANDS) as OperatorCommand[]) {
    channel.post(`/${command}`, async (request) => ({ message: await OPERATOR_COMMANDS[command](auth, request.body) }));
  }
  channel.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) {
      const status = getHTTPStatusCodeFromError(new TRPCError({ code: error.code, message: error.message }));
      return reply.code(status).send(errorBody(status, error.message, error.reason));
    }
    const { status, body } = fastifyErrorToBody(error);
    if (status >= 500) request.log.error({ err: error }, 'operator command failed');
    return reply.code(status).send(body);
  });
  channel.setNotFoundHandler((request, reply) => reply.code(404).send(errorBody(404, `No operator command at ${request.url}`)));
  return {
    async listen(socketPath) {
      if (!socketPath) {
        log.warn('DATA_DIR\'s path is too long for a UNIX socket: backup, create-user and reset-password need this server stopped (or ADMIN_TOKEN for backup)');
        return;
      }
      // Whoever holds DATA_DIR's lock owns its socket: one left by a killed server is only a file.
      await rm(socketPath, { force: true });
      await channel.listen({ path: socketPath, listenTextResolver: (address) => `operator commands (backup, create-user, reset-password) answered on ${address}` });
      await chmod(socketPath, 0o600);
    },
    close: () => channel.close(),
  };
}
