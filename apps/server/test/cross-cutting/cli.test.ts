import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_ENTRY } from '../support/server-process';

const COMMANDS = ['serve', 'migrate', 'backup', 'restore', 'create-user', 'reset-password'];
const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-cli-'));

/** The built CLI as a process, with a configuration that would fail to load: help and usage errors must not need one. */
async function tasklane(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SERVER_ENTRY, ...args], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: 'not-a-port' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('tasklane command line', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each([['--help'], ['-h'], ['help']])('`tasklane %s` prints every command on stdout and exits 0', async (flag) => {
    const result = await tasklane(flag);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: tasklane \[command\]/);
    for (const command of COMMANDS) expect(result.stdout).toContain(`tasklane ${command}`);
  });

  it.each(COMMANDS)('`tasklane %s --help` prints that command\'s usage and exits 0, running nothing', async (command) => {
    const result = await tasklane(command, '--help');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^Usage: tasklane ${command}`));
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('`tasklane help <command>` and `-h` after arguments print the command\'s usage too', async () => {
    for (const args of [['help', 'restore'], ['restore', 'some-file', '-h']]) {
      expect(await tasklane(...args)).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^Usage: tasklane restore <file>/) });
    }
  });

  it('`tasklane --version` prints the version', async () => {
    expect(await tasklane('--version')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });

  it.each([
    [['frobnicate'], /^Unknown command "frobnicate"\.\n\nUsage: tasklane \[command\]/],
    [['help', 'frobnicate'], /^Unknown command "frobnicate"\./],
    [['--frobnicate'], /^Unknown option '--frobnicate'\.\n\nUsage: tasklane \[command\]/],
    [['backup', '--force', 'x.tar.gz'], /^Unknown option '--force'\.\n\nUsage: tasklane backup <file>/],
    [['backup'], /^backup takes <file>\.\n\nUsage: tasklane backup <file>/],
    [['restore', 'a.tar.gz', 'b.tar.gz'], /^restore takes <file>\.\n\nUsage: tasklane restore <file>/],
    [['create-user', 'someone@example.com'], /^create-user takes <email> <name>\.\.\.\./],
    [['migrate', 'now'], /^migrate takes no arguments\./],
    [['--help=yes'], /^Option '-h, --help' does not take an argument\./],
  ])('`tasklane %j` prints the usage on stderr and exits 2, running nothing', async (args, message) => {
    const result = await tasklane(...args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('a bad setting is one line on stderr and exit 1, after the arguments were accepted', async () => {
    const result = await tasklane('migrate');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
