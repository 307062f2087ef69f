import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { ATTACHMENT_MAX_BYTES_DEFAULT } from '@tasklane/schemas';
import { z } from 'zod';
import type { S3Config } from './storage';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * PostgreSQL connections per process unless DATABASE_POOL_SIZE says otherwise: one more than the
 * cores, at most 10. Fewer connections carry more pipelined queries each, so PostgreSQL wakes and
 * switches between backends less: on a 2-core machine 3 connections served every scenario faster
 * than 10 and than 5, measured turn about (docs/operations.md, "The PostgreSQL pool"); the one more than the
 * cores keeps a long transaction from holding half the pool.
 */
const defaultPoolSize = () => Math.min(10, availableParallelism() + 1);

/** Durations like `24h`, `30m`, `900s` or plain seconds. */
const durationSeconds = z
  .string()
  .regex(/^\d+[smhd]?$/, 'expected seconds or a number with s, m, h or d (e.g. 24h)')
  .transform((raw) => {
    const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
    const unit = /[smhd]$/.test(raw) ? raw.slice(-1) : 's';
    return Number.parseInt(raw, 10) * (units[unit] ?? 1);
  })
  .refine((seconds) => seconds >= 60 && seconds <= 30 * 86_400, 'must be between 1 minute and 30 days');

const milliseconds = z.coerce.number().int().min(10).max(30 * 86_400_000);

/** Node's timers fire at once for any delay over 2^31 − 1 ms (about 24.8 days), so a longer one would spin. */
export const TIMER_MAX_MS = 2_147_483_647;

/** A duration handed to setTimeout, setInterval or AbortSignal.timeout. */
const timerMilliseconds = z.coerce.number().int().min(10).max(TIMER_MAX_MS);

const flag = z.enum(['true', 'false']).transform((raw) => raw === 'true');

const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** `scheme://host[:port]`, where the service's users reach it (links in emails, the sign-on callback). */
const origin = z
  .string()
  .regex(/^https?:\/\/[^/\s?#]+\/?$/, 'expected scheme://host[:port], without a path')
  .transform((raw) => raw.replace(/\/$/, ''));

/** Every environment variable the server reads, its check and its default (docs/operations.md lists the same). */
export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(defaultPoolSize),
  DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
  DATABASE_LISTEN_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((raw) => raw.split(',').map((url) => url.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, 'each one a postgres:// or postgresql:// URL')).max(16))
    .default([]),
  // At least a poll's interval apart from nothing; at most 5 min, since a member removed from a project may read it from a replica that long.
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(100).max(300_000).default(1000),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_TTL: durationSeconds.default(86_400),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  AUTH_RATE_LIMIT: z.coerce.number().int().min(0).default(20),
  TOKEN_RATE_LIMIT: z.coerce.number().int().min(0).default(6000),
  TOKEN_CHECK_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  TRUST_PROXY: z
    .string()
    .transform((raw): boolean | string => (raw === 'true' ? true : raw === 'false' ? false : raw))
    .default(false),
  CORS_ORIGINS: z
    .string()
    .transform((raw) => raw.split(',').map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'each origin is scheme://host[:port], no path')))
    .default([]),
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(10),
  WORKERS: z
    .string()
    .regex(/^(auto|[1-9]\d*)$/, 'expected a number of processes or auto (one per core)')
    .transform((raw) => (raw === 'auto' ? availableParallelism() : Number.parseInt(raw, 10)))
    .pipe(z.number().max(256, 'at most 256'))
    .default(1),
  EVENT_HEARTBEAT_MS: timerMilliseconds.default(15_000),
  EVENT_MAX_QUEUED: z.coerce.number().int().min(10).max(1_000_000).default(1000),
  REMINDER_WINDOW: durationSeconds.default(86_400),
  REMINDER_POLL_MS: timerMilliseconds.default(60_000),
  EVENT_DISPATCH_POLL_MS: timerMilliseconds.default(5000),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  WEBHOOK_POLL_MS: timerMilliseconds.default(1000),
  WEBHOOK_TIMEOUT_MS: timerMilliseconds.default(10_000),
  WEBHOOK_RETRY_BASE_MS: milliseconds.default(10_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: milliseconds.default(6 * 3_600_000),
  WEBHOOK_RETRY_WINDOW_MS: milliseconds.default(24 * 3_600_000),
  WEBHOOK_LOG_RETENTION_MS: milliseconds.default(7 * 86_400_000),
  PUBLIC_URL: origin.optional(),
  SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).max(320).optional(),
  MAIL_DIGEST_HOUR: z.coerce.number().int().min(0).max(23).default(8),
  OIDC_ISSUER: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .refine((raw) => raw.startsWith('https://') || LOOPBACK_HOST.test(new URL(raw).hostname), 'must be https:// (plain http only on a loopback address)')
    .optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_NAME: z.string().trim().min(1).max(60).default('Single sign-on'),
  OIDC_AUTO_CREATE: flag.default(true),
  PASSWORD_LOGIN: flag.default(true),
  // At most 5 GiB: the largest object S3 copies in one request (a stored upload is copied to its content key).
  ATTACHMENT_MAX_BYTES: z.coerce.number().int().min(1).max(5_368_709_120).default(ATTACHMENT_MAX_BYTES_DEFAULT),
  ATTACHMENT_LINK_TTL: z.coerce.number().int().min(1).max(7 * 86_400).default(300),
  IMPORT_MAX_BYTES: z.coerce.number().int().min(1).max(1_073_741_824).default(157_286_400),
  IMPORT_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(2000),
  IMPORT_LEASE_MS: z.coerce.number().int().min(1000).max(86_400_000).default(30_000),
  PROJECT_STORAGE_QUOTA: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  S3_BUCKET: z.string().min(3).max(255).optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: flag.default(false),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  /** Connections each server process keeps to PostgreSQL (DATABASE_URL); queries beyond them are pipelined. */
  databasePoolSize?: number;
  /**
   * `transaction` when DATABASE_URL goes through a pooler in transaction mode (PgBouncer's
   * `pool_mode = transaction`): no statement is prepared by name on the server, since the next one
   * may run on another server connection.
   */
  databasePooler: 'none' | 'transaction';
  /** A direct connection (not through a pooler) for LISTEN and migrations; DATABASE_URL when unset. */
  databaseListenUrl?: string;
  /** Streaming replicas that serve reads, and how far behind (ms) a read without a position may be. */
  databaseReplicas?: { urls: string[]; maxLagMs: number };
  jwtSecret: string;
  jwtTtlSeconds: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Readable lines for a person, or JSON lines for a log collector (the default when absent). */
  logFormat?: 'pretty' | 'json';
  /** Login and register requests per minute, per client IP and per email; 0 turns the limit off. */
  authRateLimit: number;
  /** Requests per minute per bearer token on the API; 0 turns the limit off. */
  tokenRateLimit: number;
  /**
   * How long "this token still holds" is remembered (0: ask the database on every request).
   * Revocations reach every instance at once through NOTIFY; this bounds a lost notification.
   */
  tokenCheckCacheMs: number;
  /** When set, rate-limit counters live in Redis and are shared by every instance. */
  redisUrl?: string;
  /** Browser origins allowed by CORS; empty means no cross-origin access. */
  corsOrigins: string[];
  /** Enables GET /admin/backup (PGlite) for `tasklane backup` against a running server. */
  adminToken?: string;
  /** Fastify's trustProxy (true, or the proxies' addresses): behind a load balancer the client IP comes from X-Forwarded-For. */
  trustProxy: boolean | string;
  bcryptCost: number;
  /** Server processes sharing the port (Node cluster); more than one only on PostgreSQL. */
  workers: number;
  /** Interval of the heartbeat comment on live event streams. */
  eventHeartbeatMs: number;
  /** Events a live stream may fall behind its client before it is cut off (the slow-consumer limit). */
  eventMaxQueued: number;
  webhooks: WebhookConfig;
  reminders: ReminderConfig;
  dispatch: DispatchConfig;
  /** Imports (issue 38): the largest file (IMPORT_MAX_BYTES), how often the job looks for one (IMPORT_POLL_MS), and its lease (IMPORT_LEASE_MS). */
  imports: { maxBytes: number; pollMs: number; leaseMs: number };
  /** Where users reach the service: the base of links in emails and of the sign-on callback. */
  publicUrl: string;
  /** Outgoing email; absent when SMTP_URL is unset (no email is sent, none is queued). */
  mail?: MailConfig;
  /** Single sign-on through an OpenID provider; absent when OIDC_ISSUER is unset. */
  oidc?: OidcConfig;
  /** Register and log in with a password (PASSWORD_LOGIN); off leaves single sign-on the only way in. */
  passwordLogin: boolean;
  attachments: AttachmentConfig;
}

export interface AttachmentConfig {
  /** The largest file an upload may carry (ATTACHMENT_MAX_BYTES); a larger one is a 413 and nothing is kept. */
  maxBytes: number;
  /** How long a signed download link (`downloadUrl`) stays valid, in seconds. */
  linkTtlSeconds: number;
  /** The deduplicated bytes a project may store (PROJECT_STORAGE_QUOTA); none when absent. */
  quotaBytes?: number;
  /** The S3-compatible bucket holding the files; absent: files under DATA_DIR/files. */
  s3?: S3Config;
  /** How often the sweep of files no row names runs (also once at start-up). */
  sweepIntervalMs: number;
  /** An upload's temporary file older than this is a failed upload's: the sweep removes it. */
  temporaryMaxAgeMs: number;
}

export interface MailConfig {
  /** smtp:// or smtps://, with credentials in the URL when the server needs them. */
  smtpUrl: string;
  /** The From address, e.g. `Tasklane <tasklane@example.com>`. */
  from: string;
  /** How often each instance looks for due messages (it is also woken by every message queued). */
  pollMs: number;
  /** First retry delay after a failed attempt; it doubles per attempt up to `retryMaxDelayMs`. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** Attempts before a message is given up (kept as FAILED with its last error). */
  maxAttempts: number;
  /** The hour (0–23, UTC) at which users who chose `daily` get their digest of notifications. */
  digestHour: number;
  /** The digest scheduler's clock; tests move it to the digest hour. Defaults to the system clock. */
  now?: () => Date;
}

export interface DispatchConfig {
  /** Dispatch events here (events/dispatcher.ts). Off only in tests that stand for an instance stopped before dispatching. */
  enabled: boolean;
  /** How often each instance looks for undispatched events (it is also woken by every event's commit). */
  pollMs: number;
  /** How long a write's request waits for its events' notifications and deliveries before it answers anyway. */
  settleMs: number;
}

export interface ReminderConfig {
  /** A task assigned to someone and due within this many seconds gets a `task.due_soon` reminder. */
  windowSeconds: number;
  /** How often each instance tries to run the reminder job (one instance at a time runs it). */
  pollMs: number;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The label of the web app's sign-on button. */
  name: string;
  /** Create an account on a first sign-on whose email matches none (OIDC_AUTO_CREATE). */
  autoCreate: boolean;
}

export interface WebhookConfig {
  /** Allow targets on private, loopback and link-local addresses (off by default: SSRF). */
  allowPrivate: boolean;
  /** How often each instance looks for due deliveries (it is also woken by every change). */
  pollMs: number;
  /** Time allowed for one delivery attempt. */
  timeoutMs: number;
  /** First retry delay; it doubles per attempt up to `retryMaxDelayMs`. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** A delivery is retried until it is this old; then it fails and its webhook is disabled. */
  retryWindowMs: number;
  /** Finished deliveries (delivered or failed) are deleted from the log once this old. */
  logRetentionMs: number;
}

export class ConfigError extends Error {}

/** Parses the environment once; every setting of the service comes through here. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n');
    throw new ConfigError(`Invalid environment:\n${problems}`);
  }
  const values = parsed.data;
  if (values.WORKERS > 1 && !values.DATABASE_URL) {
    throw new ConfigError(
      `WORKERS=${env.WORKERS} asks for ${values.WORKERS} processes, but the embedded PGlite database lives inside one process: ` +
        'set DATABASE_URL to use PostgreSQL with several workers, or leave WORKERS at 1.',
    );
  }
  if (values.DATABASE_POOLER === 'transaction' && !(values.DATABASE_URL && values.DATABASE_LISTEN_URL)) {
    throw new ConfigError(
      'DATABASE_POOLER=transaction needs DATABASE_URL (through the pooler) and DATABASE_LISTEN_URL (straight to PostgreSQL): ' +
        'LISTEN and the migrations\' lock hold a session, which a transaction pooler does not keep.',
    );
  }
  if (values.DATABASE_REPLICA_URLS.length > 0 && !values.DATABASE_URL) {
    throw new ConfigError('DATABASE_REPLICA_URLS are replicas of the PostgreSQL server in DATABASE_URL: set DATABASE_URL too (PGlite has no replicas).');
  }
  if (values.DATABASE_LISTEN_URL && !values.DATABASE_URL) {
    throw new ConfigError('DATABASE_LISTEN_URL is the direct connection beside DATABASE_URL: set DATABASE_URL too, or neither.');
  }
  const oidcSettings = [values.OIDC_ISSUER, values.OIDC_CLIENT_ID, values.OIDC_CLIENT_SECRET];
  if (oidcSettings.some(Boolean) && !oidcSettings.every(Boolean)) {
    throw new ConfigError('Single sign-on needs all of OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (or none of them).');
  }
  if (Boolean(values.S3_ACCESS_KEY_ID) !== Boolean(values.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('S3 credentials need both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or neither, for the AWS SDK\'s default credentials).');
  }
  if (!values.PASSWORD_LOGIN && !values.OIDC_ISSUER) {
    throw new ConfigError('PASSWORD_LOGIN=false leaves no way to sign in: configure single sign-on (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET) too.');
  }
  const dataDir = resolve(values.DATA_DIR);
  const publicUrl = values.PUBLIC_URL ?? `http://${values.HOST === '0.0.0.0' || values.HOST === '::' ? '127.0.0.1' : values.HOST}:${values.PORT}`;
  return {
    port: values.PORT,
    host: values.HOST,
    dataDir,
    ...(values.DATABASE_URL ? { databaseUrl: values.DATABASE_URL } : {}),
    databasePoolSize: values.DATABASE_POOL_SIZE,
    databasePooler: values.DATABASE_POOLER,
    ...(values.DATABASE_LISTEN_URL ? { databaseListenUrl: values.DATABASE_LISTEN_URL } : {}),
    ...(values.DATABASE_REPLICA_URLS.length > 0 ? { databaseReplicas: { urls: values.DATABASE_REPLICA_URLS, maxLagMs: values.REPLICA_MAX_LAG_MS } } : {}),
    jwtSecret: values.JWT_SECRET ?? loadOrCreateSecret(dataDir),
    jwtTtlSeconds: values.JWT_TTL,
    logLevel: values.LOG_LEVEL,
    logFormat: values.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    authRateLimit: values.AUTH_RATE_LIMIT,
    tokenRateLimit: values.TOKEN_RATE_LIMIT,
    tokenCheckCacheMs: values.TOKEN_CHECK_CACHE_MS,
    ...(values.REDIS_URL ? { redisUrl: values.REDIS_URL } : {}),
    corsOrigins: values.CORS_ORIGINS,
    trustProxy: values.TRUST_PROXY,
    ...(values.ADMIN_TOKEN ? { adminToken: values.ADMIN_TOKEN } : {}),
    bcryptCost: values.BCRYPT_COST,
    workers: values.WORKERS,
    eventHeartbeatMs: values.EVENT_HEARTBEAT_MS,
    eventMaxQueued: values.EVENT_MAX_QUEUED,
    webhooks: {
      allowPrivate: values.WEBHOOK_ALLOW_PRIVATE === 'true',
      pollMs: values.WEBHOOK_POLL_MS,
      timeoutMs: values.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: values.WEBHOOK_RETRY_BASE_MS,
      retryMaxDelayMs: values.WEBHOOK_RETRY_MAX_DELAY_MS,
      retryWindowMs: values.WEBHOOK_RETRY_WINDOW_MS,
      logRetentionMs: values.WEBHOOK_LOG_RETENTION_MS,
    },
    reminders: { windowSeconds: values.REMINDER_WINDOW, pollMs: values.REMINDER_POLL_MS },
    imports: { maxBytes: values.IMPORT_MAX_BYTES, pollMs: values.IMPORT_POLL_MS, leaseMs: values.IMPORT_LEASE_MS },
    dispatch: { enabled: true, pollMs: values.EVENT_DISPATCH_POLL_MS, settleMs: 2000 },
    publicUrl,
    ...(values.SMTP_URL
      ? {
          mail: {
            smtpUrl: values.SMTP_URL,
            from: values.MAIL_FROM ?? `Tasklane <tasklane@${new URL(publicUrl).hostname}>`,
            pollMs: 5000,
            retryBaseMs: 30_000,
            retryMaxDelayMs: 3_600_000,
            maxAttempts: 12,
            digestHour: values.MAIL_DIGEST_HOUR,
          },
        }
      : {}),
    ...(values.OIDC_ISSUER && values.OIDC_CLIENT_ID && values.OIDC_CLIENT_SECRET
      ? {
          oidc: {
            issuer: values.OIDC_ISSUER,
            clientId: values.OIDC_CLIENT_ID,
            clientSecret: values.OIDC_CLIENT_SECRET,
            name: values.OIDC_NAME,
            autoCreate: values.OIDC_AUTO_CREATE,
          },
        }
      : {}),
    passwordLogin: values.PASSWORD_LOGIN,
    attachments: {
      maxBytes: values.ATTACHMENT_MAX_BYTES,
      linkTtlSeconds: values.ATTACHMENT_LINK_TTL,
      ...(values.PROJECT_STORAGE_QUOTA !== undefined ? { quotaBytes: values.PROJECT_STORAGE_QUOTA } : {}),
      ...(values.S3_BUCKET
        ? {
            s3: {
              bucket: values.S3_BUCKET,
              ...(values.S3_ENDPOINT ? { endpoint: values.S3_ENDPOINT } : {}),
              region: values.S3_REGION,
              ...(values.S3_ACCESS_KEY_ID ? { accessKeyId: values.S3_ACCESS_KEY_ID } : {}),
              ...(values.S3_SECRET_ACCESS_KEY ? { secretAccessKey: values.S3_SECRET_ACCESS_KEY } : {}),
              forcePathStyle: values.S3_FORCE_PATH_STYLE,
            },
          }
        : {}),
      sweepIntervalMs: 3_600_000,
      temporaryMaxAgeMs: 3_600_000,
    },
  };
}

/** Without JWT_SECRET, one secret is generated and kept (mode 0600) so tokens survive restarts. */
function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another instance starting at the same moment wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
  chmodSync(file, 0o600);
  return secret;
}
