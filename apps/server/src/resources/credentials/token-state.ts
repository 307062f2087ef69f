import type { Database } from '@tasklane/db';
import type { TokenClaims } from './tokens';

/** The channel the database announces token changes on (migration 0003's triggers). */
export const TOKEN_CHANNEL = 'tasklane_tokens';

const CACHE_LIMIT = 10_000;

interface Proven {
  userId: string;
  tokenVersion: number;
  /** Date.now() when the database last said the token holds. */
  checkedAt: number;
}

/**
 * Remembers, for a few seconds, that the database said a token still holds (user present, token
 * version unchanged, not logged out), so a client's burst of requests pays that query once
 * rather than once per request — it was half the database work of a single-row read.
 *
 * A change that revokes tokens is forgotten at once on the instance that made it (`forgetToken`,
 * `forgetUser`, called after the change commits) and, through the database's NOTIFY on
 * `TOKEN_CHANNEL`, on every other instance and for changes made outside the server (the CLI's
 * reset-password, an operator's SQL). `maxAgeMs` bounds how long a lost notification could matter;
 * whenever the LISTEN connection is (re)established everything is forgotten.
 *
 * A check that started before a revocation must not store its (now outdated) answer after it:
 * every forget moves `generation` on, and `remember` ignores answers from an older generation.
 */
export function createTokenStateCache(maxAgeMs: number) {
  const proven = new Map<string, Proven>();
  let generation = 0;

  function forgetToken(jti: string): void {
    generation += 1;
    proven.delete(jti);
  }

  function forgetUser(userId: string): void {
    generation += 1;
    for (const [jti, entry] of proven) if (entry.userId === userId) proven.delete(jti);
  }

  function forgetAll(): void {
    generation += 1;
    proven.clear();
  }

  return {
    /** Whether these claims were proven current within `maxAgeMs` and nothing has revoked them since. */
    holds(claims: TokenClaims): boolean {
      if (maxAgeMs <= 0) return false;
      const entry = proven.get(claims.jti);
      if (!entry) return false;
      if (Date.now() - entry.checkedAt > maxAgeMs || entry.userId !== claims.userId || entry.tokenVersion !== claims.tokenVersion) {
        proven.delete(claims.jti);
        return false;
      }
      return true;
    },

    /** The generation a database check starts in; pass it back to `remember`. */
    generation: () => generation,

    remember(claims: TokenClaims, startedIn: number): void {
      if (maxAgeMs <= 0 || startedIn !== generation) return;
      if (proven.size >= CACHE_LIMIT && !proven.has(claims.jti)) {
        const oldest = proven.keys().next().value;
        if (oldest !== undefined) proven.delete(oldest);
      }
      proven.set(claims.jti, { userId: claims.userId, tokenVersion: claims.tokenVersion, checkedAt: Date.now() });
    },

    forgetToken,
    forgetUser,

    /** Follows the database's announcements; resolves to the function that stops following. */
    follow(database: Pick<Database, 'listen'>): Promise<() => Promise<void>> {
      return database.listen(
        TOKEN_CHANNEL,
        (payload) => {
          const separator = payload.indexOf(':');
          const kind = payload.slice(0, separator);
          const id = payload.slice(separator + 1);
          if (kind === 'jti') forgetToken(id);
          else if (kind === 'user') forgetUser(id);
          else forgetAll();
        },
        // Announcements made while the connection was down are lost: start afresh.
        forgetAll,
      );
    },
  };
}

export type TokenStateCache = ReturnType<typeof createTokenStateCache>;
