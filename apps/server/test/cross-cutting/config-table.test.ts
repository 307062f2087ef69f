import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvSchema, loadConfig, TIMER_MAX_MS } from '../../src/platform/config';
import { freePort } from '../support/ports';
import { call, startServerProcess } from '../support/server-process';

interface Row {
  name: string;
  /** The default cell as written. */
  defaultCell: string;
  meaning: string;
}

/** docs/operations.md's configuration table. */
function documentedVariables(): Row[] {
  const text = readFileSync(new URL('../../../../docs/operations.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## Configuration'), text.indexOf('\n## ', text.indexOf('## Configuration') + 1));
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| (.+?) \| (.+) \|$/gm)].map((match) => ({ name: match[1]!, defaultCell: match[2]!, meaning: match[3]! }));
}

/** Defaults the server works out at start rather than a fixed value; each row says how. */
const COMPUTED_DEFAULTS = ['DATABASE_POOL_SIZE', 'JWT_SECRET', 'PUBLIC_URL', 'MAIL_FROM'];

const shape = EnvSchema.shape as Record<string, { safeParse(value: unknown): { success: boolean; data?: unknown } }>;
const parseOne = (name: string, value: string | undefined) => shape[name]!.safeParse(value);

/**
 * Settings every check below starts from, so that each value is judged alone: PostgreSQL (WORKERS
 * above 1 needs it) and single sign-on (PASSWORD_LOGIN=false needs it).
 */
const BASE = {
  JWT_SECRET: 'config-table-secret-that-is-long-enough-1234',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  OIDC_ISSUER: 'https://id.example.com',
  OIDC_CLIENT_ID: 'tasklane',
  OIDC_CLIENT_SECRET: 'secret',
};
const accepts = (name: string, value: string) => {
  try {
    loadConfig({ ...BASE, [name]: value });
    return true;
  } catch {
    return false;
  }
};

/**
 * The configuration table of docs/operations.md and the parser (src/config.ts) agree: the same
 * variables, the same defaults, and every value or range a row documents is what the parser
 * accepts; the documented special values start the built server and do what they say.
 */
describe('the documented configuration and the parser', () => {
  const rows = documentedVariables();

  it('list the same variables', () => {
    expect(rows.length).toBeGreaterThan(30);
    expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });

  it('have the same defaults', () => {
    for (const { name, defaultCell } of rows) {
      const unset = parseOne(name, undefined);
      expect(unset.success, name).toBe(true);
      const literal = /^`([^`]*)`$/.exec(defaultCell)?.[1];
      if (COMPUTED_DEFAULTS.includes(name)) continue;
      if (defaultCell === 'unset') expect({ name, value: unset.data }).toEqual({ name, value: undefined });
      else if (defaultCell === 'empty') expect({ name, value: unset.data }).toEqual({ name, value: [] });
      else {
        expect(literal, `${name}: the default "${defaultCell}" is not one value in backticks`).toBeDefined();
        const written = parseOne(name, literal);
        expect({ name, value: written.data }).toEqual({ name, value: unset.data });
      }
    }
  });

  it('work out the computed defaults as their rows say', () => {
    expect(rows.filter((row) => !/^`[^`]*`$|^unset$|^empty$/.test(row.defaultCell)).map((row) => row.name).sort()).toEqual(
      COMPUTED_DEFAULTS.filter((name) => name !== 'PUBLIC_URL').sort(),
    );
    const config = loadConfig({ JWT_SECRET: BASE.JWT_SECRET, SMTP_URL: 'smtp://mail.example.com:587' });
    expect(config.databasePoolSize).toBe(Math.min(10, availableParallelism() + 1));
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
    expect(config.mail?.from).toBe('Tasklane <tasklane@127.0.0.1>');
  });

  it('accept both ends of every documented range and refuse just outside it', () => {
    let ranges = 0;
    for (const { name, meaning } of rows) {
      const range = /(?<![\w-])(\d+)–(\d+)(?![\w-])/.exec(meaning);
      if (!range) continue;
      ranges += 1;
      const [low, high] = [Number(range[1]), Number(range[2])];
      expect({ name, low: accepts(name, String(low)), high: accepts(name, String(high)) }).toEqual({ name, low: true, high: true });
      expect({ name, above: accepts(name, String(high + 1)) }).toEqual({ name, above: false });
      if (low > 0) expect({ name, below: accepts(name, String(low - 1)) }).toEqual({ name, below: false });
    }
    expect(ranges).toBeGreaterThanOrEqual(10);
  });

  it('accept every special value a row names (`0`, `true`, `false`, `auto`)', () => {
    for (const { name, meaning } of rows) {
      for (const [, value] of meaning.matchAll(/`(\d+|true|false|auto)`/g)) {
        expect({ name, value, accepted: accepts(name, value!) }).toEqual({ name, value, accepted: true });
      }
    }
  });

  it('cap every duration the server waits on with a timer at Node\'s longest timer', () => {
    for (const name of ['EVENT_HEARTBEAT_MS', 'WEBHOOK_POLL_MS', 'WEBHOOK_TIMEOUT_MS']) {
      expect({ name, at: accepts(name, String(TIMER_MAX_MS)), over: accepts(name, String(TIMER_MAX_MS + 1)) }).toEqual({ name, at: true, over: false });
      expect(rows.find((row) => row.name === name)?.meaning).toContain(`10–${TIMER_MAX_MS}`);
    }
  });

  describe('the built server', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-config-table-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    it('starts with the documented special values and turns the limits off', async () => {
      const server = await startServerProcess(
        {
          DATA_DIR: dataDir,
          AUTH_RATE_LIMIT: '0',
          TOKEN_RATE_LIMIT: '0',
          TOKEN_CHECK_CACHE_MS: '0',
          WEBHOOK_POLL_MS: String(TIMER_MAX_MS),
          EVENT_HEARTBEAT_MS: String(TIMER_MAX_MS),
          WEBHOOK_TIMEOUT_MS: String(TIMER_MAX_MS),
        },
        await freePort(),
      );
      try {
        // Far more attempts than the default limit of 20 a minute: none is refused.
        const statuses = new Set<number>();
        for (let attempt = 0; attempt < 30; attempt += 1) {
          statuses.add((await call(server.baseUrl, 'POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'password-123' } })).status);
        }
        expect([...statuses]).toEqual([401]);
        expect((await call(server.baseUrl, 'GET', '/readyz')).status).toBe(200);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }, 120_000);
  });
});
