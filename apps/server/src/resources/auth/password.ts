import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /** Compares against a fixed hash so an unknown email takes as long as a wrong password. */
  verifyAgainstDummy(password: string): Promise<void>;
  close(): Promise<void>;
}

/** bcryptjs in worker threads, so a login flood cannot stall other requests; `onRun` is told of each run (the metrics). */
export function createPasswordHasher(cost: number, onRun: (operation: 'hash' | 'verify') => void = () => {}): PasswordHasher {
  const pool = new Piscina({
    filename: new URL('./password-worker.mjs', import.meta.url).href,
    maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
    idleTimeout: 30_000,
  });
  const hash = (password: string) => {
    onRun('hash');
    return pool.run({ op: 'hash', password, cost }) as Promise<string>;
  };
  const verify = (password: string, hashed: string) => {
    onRun('verify');
    return pool.run({ op: 'verify', password, hash: hashed }) as Promise<boolean>;
  };
  let dummyHash: Promise<string> | undefined;
  return {
    hash,
    verify,
    async verifyAgainstDummy(password) {
      dummyHash ??= hash('timing-equaliser-not-a-password');
      await verify(password, await dummyHash);
    },
    close: () => pool.close(),
  };
}
