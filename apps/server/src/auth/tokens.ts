import { SignJWT, jwtVerify } from 'jose';
import { isId } from '../lib/ids';
import type { Grant } from '../policy';

export interface TokenClaims {
  userId: string;
  /** The user's token version when issued; a password change bumps it and so revokes the token. */
  tokenVersion: number;
  /** The token's own id, which POST /auth/logout revokes: a login token's session id, a personal access token's id. */
  jti: string;
  /** Seconds since the epoch. */
  expiresAt: number;
  /**
   * The session a login token belongs to (its `sid` claim, equal to its jti): the token holds while
   * the session row exists. Absent on login tokens issued before sessions, which hold as they did.
   */
  sessionId?: string;
  /** A personal access token's scopes and projects; absent for a login token (a session's grant). */
  grant?: Grant;
}

const CACHE_LIMIT = 10_000;

/** HS256 tokens. Verified tokens are cached (bounded, until their `exp`): a verify costs ~150 µs. */
export function createTokenService(secret: string, ttlSeconds: number) {
  const key = new TextEncoder().encode(secret);
  const verified = new Map<string, TokenClaims>();

  /** A login token of the session `sessionId` (its jti and `sid` claim). */
  async function issue(userId: string, tokenVersion: number, sessionId: string): Promise<{ token: string; expiresIn: number }> {
    const token = await new SignJWT({ tv: tokenVersion, sid: sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuedAt()
      .setJti(sessionId)
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(key);
    return { token, expiresIn: ttlSeconds };
  }

  async function verify(token: string): Promise<TokenClaims | undefined> {
    const cached = verified.get(token);
    if (cached) {
      if (cached.expiresAt * 1000 > Date.now()) return cached;
      verified.delete(token);
      return undefined;
    }
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['sub', 'exp', 'jti'] });
      if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number' || typeof payload.jti !== 'string') return undefined;
      const claims: TokenClaims = {
        userId: payload.sub,
        tokenVersion: typeof payload.tv === 'number' ? payload.tv : 0,
        jti: payload.jti,
        expiresAt: payload.exp,
        ...(typeof payload.sid === 'string' && payload.sid === payload.jti && isId(payload.sid) ? { sessionId: payload.sid } : {}),
      };
      if (verified.size >= CACHE_LIMIT) {
        const oldest = verified.keys().next().value;
        if (oldest !== undefined) verified.delete(oldest);
      }
      verified.set(token, claims);
      return claims;
    } catch {
      return undefined;
    }
  }

  return { issue, verify, ttlSeconds };
}

export type TokenService = ReturnType<typeof createTokenService>;
