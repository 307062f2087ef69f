import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports';
import { call, SERVER_ENTRY, startServerProcess } from '../support/server-process';
import { startSmtpServer } from '../support/smtp-server';

/** The server refuses to start on these settings: its exit code and what it printed. */
function refusedStart(env: Record<string, string>, dataDir: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, JWT_SECRET: 'config-test-secret-that-is-long-enough-1234', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

describe('identity settings from the environment', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-identity-config-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each([
    [{ OIDC_ISSUER: 'https://id.example.com/realms/team' }, 'OIDC_CLIENT_ID'],
    [{ PASSWORD_LOGIN: 'false' }, 'PASSWORD_LOGIN=false leaves no way to sign in'],
    [{ OIDC_ISSUER: 'http://id.example.com', OIDC_CLIENT_ID: 'tasklane', OIDC_CLIENT_SECRET: 'secret' }, 'OIDC_ISSUER: must be https://'],
    [{ SMTP_URL: 'mail.example.com:587' }, 'SMTP_URL: must be an smtp:// or smtps:// URL'],
    [{ PUBLIC_URL: 'https://tasks.example.com/app' }, 'PUBLIC_URL: expected scheme://host[:port], without a path'],
    [{ OIDC_AUTO_CREATE: 'yes' }, 'OIDC_AUTO_CREATE'],
  ])('refuses %j, naming the problem', async (env, message) => {
    const { code, output } = await refusedStart(env, dataDir);
    expect(code).toBe(1);
    expect(output).toContain(message);
  });

  it('sends email through SMTP_URL (credentials in the URL) from MAIL_FROM, with links to PUBLIC_URL', async () => {
    const smtp = await startSmtpServer();
    const port = await freePort();
    const server = await startServerProcess(
      { DATA_DIR: mkdtempSync(join(dataDir, 'mail-')), SMTP_URL: smtp.url, MAIL_FROM: 'Team Tasks <tasks@example.org>', PUBLIC_URL: 'https://tasks.example.org' },
      port,
    );
    try {
      const email = `process-${Date.now()}@example.com`;
      expect((await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Proc', email, password: 'password-123' } })).status).toBe(201);
      expect((await call(server.baseUrl, 'GET', '/api/v1/auth/providers')).body).toEqual({ password: true, passwordReset: true, oidc: null });
      expect((await call(server.baseUrl, 'POST', '/api/v1/auth/password-reset', { body: { email } })).status).toBe(202);
      const [mail] = await smtp.waitForMessages(1);
      expect(mail!.from).toBe('"Team Tasks" <tasks@example.org>');
      expect(mail!.to).toBe(email);
      expect(mail!.text).toContain('https://tasks.example.org/reset-password#token=');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await smtp.close();
    }
    // A server process on a fresh PGlite directory: its start alone takes tens of seconds on a busy machine.
  }, 120_000);
});
