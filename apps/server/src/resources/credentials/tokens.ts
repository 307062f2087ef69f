import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import type { Grant } from '../policy/policy';

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

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 9110); undefined for any other value. */
export const bearerTokenOf = (authorization: string): string | undefined => /^Bearer ([A-Za-z0-9_.-]{1,4096})$/i.exec(authorization.trim())?.[1];

const CACHE_LIMIT = 10_000;
/** Clocks of two instances may disagree a little; a token issued further ahead was not issued by us. */
const CLOCK_SKEW_SECONDS = 60;

/** Ids as `newId` writes them: lowercase UUIDs. */
const id = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const whole = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const version = z.number().int().nonnegative().max(2_147_483_647);

/**
 * Exactly the claims `issue` signs (and, without `sid`, what login tokens carried before
 * sessions): a token that verifies but carries anything else was not issued by this service, and
 * is refused like a forged one rather than trusted field by field.
 */
const issuedClaims = z
  .strictObject({
    sub: id,
    tv: version,
    sid: id.optional(),
    jti: id,
    iat: whole,
    exp: whole,
  })
  .refine((claims) => claims.sid === undefined || claims.sid === claims.jti)
  .refine((claims) => claims.iat < claims.exp && claims.iat <= Date.now() / 1000 + CLOCK_SKEW_SECONDS);

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
      const { payload, protectedHeader } = await jwtVerify(token, key, { algorithms: ['HS256'], typ: 'JWT' });
      const parsed = issuedClaims.safeParse(payload);
      if (!parsed.success || Object.keys(protectedHeader).some((name) => name !== 'alg' && name !== 'typ')) return undefined;
      const { sub, tv, sid, jti, exp } = parsed.data;
      const claims: TokenClaims = {
        userId: sub,
        tokenVersion: tv,
        jti,
        expiresAt: exp,
        ...(sid ? { sessionId: sid } : {}),
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
