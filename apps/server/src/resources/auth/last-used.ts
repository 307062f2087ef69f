import type { BackgroundQueue } from '../../platform/background';
import type { TokenClaims } from '../credentials/tokens';

/** How stale "last used" may be: a credential is stamped at most once per this, per instance. */
const STAMP_EVERY_MS = 60_000;
const REMEMBERED_LIMIT = 10_000;

/**
 * Stamps when sessions and personal access tokens were last used, off the request's path: at most
 * once a minute per credential and instance, in the background (a failed stamp is only reported).
 */
export function createLastUsedRecorder(stamp: (claims: TokenClaims) => Promise<void>, background: BackgroundQueue) {
  const stampedAt = new Map<string, number>();
  return {
    note(claims: TokenClaims): void {
      const now = Date.now();
      const last = stampedAt.get(claims.jti);
      if (last !== undefined && now - last < STAMP_EVERY_MS) return;
      if (stampedAt.size >= REMEMBERED_LIMIT && last === undefined) stampedAt.delete(stampedAt.keys().next().value as string);
      stampedAt.set(claims.jti, now);
      background.run(() => stamp(claims));
    },
  };
}
