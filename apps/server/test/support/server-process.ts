import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

/** The built server (`npm test` builds before testing); the process tests run it as production does. */
export const SERVER_ENTRY = join(import.meta.dirname, '../../dist/main.mjs');

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  output(): string;
}

/** The settings every server and CLI process of the tests starts from. */
const BASE_ENV = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', BCRYPT_COST: '4', JWT_SECRET: 'process-test-secret-that-is-long-enough-for-hs256' };

/** `tasklane <args>` as an operator runs it: its exit code and both outputs, whether it fails or not. */
export async function runTasklane(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SERVER_ENTRY, ...args], { env: { PATH: process.env.PATH ?? '', ...BASE_ENV, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A failure an operator reads: one line on stderr, no stack trace, exit code 1. */
export function expectOneLineFailure(result: { code: number; stderr: string }, pattern: RegExp) {
  expect(result.code).toBe(1);
  expect(result.stderr.trim()).toMatch(pattern);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

export async function startServerProcess(env: Record<string, string>, port: number): Promise<ServerProcess> {
  if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: build the server first (npx -y pnpm@12.21.0 turbo run build)`);
  const child = spawn(process.execPath, [SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...BASE_ENV, PORT: String(port), TOKEN_RATE_LIMIT: '0', AUTH_RATE_LIMIT: '100000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (;;) {
    const state = await Promise.race([
      exited.then(() => 'exited' as const),
      fetch(`${baseUrl}/readyz`).then((response) => (response.ok ? ('ready' as const) : ('waiting' as const)), () => 'waiting' as const),
    ]);
    if (state === 'ready') break;
    if (state === 'exited') throw new Error(`server exited while starting:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, baseUrl, exited, output: () => output };
}

/** JSON over HTTP against a server process, with any further request headers. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  { token, body, headers = {} }: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A field of /proc/<pid>/status, in bytes (the kernel reports kB): the memory tests' resident set and its peak. */
export const statusBytes = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
