import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { MailConfig } from '../../src/platform/config';

export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string | false;
  headers: ParsedMail['headers'];
  /** The header section as sent, one unfolded line per header (`Name: value`). */
  headerLines: string[];
}

export interface TestSmtpServer {
  /** SMTP_URL for the server, its credentials in it. */
  url: string;
  received: ReceivedMail[];
  /** Attempts the server answered (accepted or refused). */
  attempts: number;
  /** Waits until `count` messages have arrived (generous: the sender works in the background). */
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

const USER = 'tasklane';
const PASSWORD = 'smtp-password-7c2e';

/**
 * A real SMTP server on a loopback port, which checks the credentials of SMTP_URL and keeps what it
 * receives (parsed). `refuseFirst` answers that many messages with a temporary failure (451) first.
 */
export async function startSmtpServer({ refuseFirst = 0 }: { refuseFirst?: number } = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let attempts = 0;
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      attempts += 1;
      if (attempts <= refuseFirst) {
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('Try again later'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then(
        (mail) => {
          received.push({
            to: Array.isArray(mail.to) ? mail.to.map((address) => address.text).join(', ') : (mail.to?.text ?? ''),
            from: mail.from?.text ?? '',
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: mail.html ?? false,
            headers: mail.headers,
            headerLines: mail.headerLines.map(({ line }) => line.replace(/\r?\n[ \t]+/g, ' ')),
          });
          callback();
          for (const wake of waiters) wake();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    received,
    get attempts() {
      return attempts;
    },
    waitForMessages(count, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} messages within ${timeoutMs} ms, got ${received.length}`));
        }, timeoutMs);
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(received);
        };
        waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The mail settings of a server that sends to `smtpUrl`: quick polls and retries, so a test waits seconds, not minutes. */
export function testMailConfig(smtpUrl: string, extra: Partial<MailConfig> = {}): MailConfig {
  return { smtpUrl, from: 'Tasklane <tasklane@tasklane.test>', pollMs: 1000, retryBaseMs: 200, retryMaxDelayMs: 1000, maxAttempts: 5, digestHour: 8, ...extra };
}
