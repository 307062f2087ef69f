import { LogController } from 'fastify';
import PinoPretty from 'pino-pretty';

/**
 * One log line per request, written when it is answered: the request, the status and the time it
 * took together, rather than Fastify's two lines (received, completed) to be matched by reqId.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(...[error, request, reply]: Parameters<LogController['requestCompleted']>): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

interface RequestLine {
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

/**
 * Log lines for a person at a terminal, by pino-pretty: the time, the level and the message, a
 * request as `GET /path 200 12 ms`. Written synchronously, so the last lines before an exit show.
 */
export function prettyLogStream(destination?: NodeJS.WritableStream) {
  return PinoPretty({
    sync: true,
    colorize: destination ? false : Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,reqId,req,res,responseTime,channel',
    messageFormat: (log: RequestLine & Record<string, unknown>, messageKey: string) =>
      log.req?.method && log.res
        ? `${log.req.method} ${log.req.url} ${log.res.statusCode} ${Math.round(log.responseTime ?? 0)} ms`
        : String(log[messageKey] ?? ''),
    ...(destination ? { destination } : {}),
  });
}
