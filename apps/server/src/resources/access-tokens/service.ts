import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '@tasklane/db';
import { ACCESS_TOKEN_PREFIX, type AccessToken, type CreateAccessTokenInput, type CreatedAccessToken, type TokenScope } from '@tasklane/schemas';
import { requireProjectAccess } from '../policy/access';
import type { TokenStateCache } from '../credentials/token-state';
import type { TokenClaims } from '../credentials/tokens';
import { notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { decodeIdCursor, type Page, pageSize, toPage } from '../../platform/paging';
import * as store from './store';

const CACHE_LIMIT = 10_000;
/** Claims of a token that never expires: far beyond any date a check compares with. */
const NEVER = Number.MAX_SAFE_INTEGER;

/** The digest a token is stored and looked up by; the token itself is never kept. */
export const digestOf = (token: string) => createHash('sha256').update(token).digest('hex');

const toAccessToken = (row: store.AccessTokenRow): AccessToken => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes as TokenScope[],
  projectIds: row.projectIds,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  expiresAt: row.expiresAt?.toISOString() ?? null,
});

const claimsOf = (row: store.AccessTokenRow): TokenClaims => ({
  userId: row.userId,
  tokenVersion: 0,
  jti: row.id,
  expiresAt: row.expiresAt ? Math.floor(row.expiresAt.getTime() / 1000) : NEVER,
  grant: { kind: 'token', scopes: row.scopes as TokenScope[], projectIds: row.projectIds },
});

/**
 * Personal access tokens: `tl_pat_` and 43 characters of randomness (256 bits), so secret scanners
 * can recognise a leaked one. Only a SHA-256 digest is stored (the randomness makes a slow hash
 * unnecessary). What a token may do is decided per request by policy.ts from its scopes and
 * projects, and always within what its owner may do at that moment.
 */
export function createAccessTokensService(db: Db, tokenStates: TokenStateCache) {
  /** Claims by digest: a token's scopes, projects and expiry never change, only whether it exists. */
  const known = new Map<string, TokenClaims>();

  return {
    async create(userId: string, input: CreateAccessTokenInput): Promise<CreatedAccessToken> {
      const projectIds = input.projectIds ? [...new Set(input.projectIds.map((id) => id.toLowerCase()))] : null;
      // Only projects the owner can see now: another is a 404, as everywhere.
      for (const projectId of projectIds ?? []) await requireProjectAccess(db, projectId, userId);
      const token = `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const row = await store.insertAccessToken(db, {
        id: newId(),
        userId,
        name: input.name,
        tokenHash: digestOf(token),
        scopes: [...new Set(input.scopes)],
        projectIds,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      });
      return { ...toAccessToken(row), token };
    },

    async list(userId: string, query: { limit?: number; cursor?: string }): Promise<Page<AccessToken>> {
      const limit = pageSize(query.limit);
      const rows = await store.listOfUser(db, userId, decodeIdCursor(query.cursor), limit + 1);
      return toPage(rows, limit, toAccessToken, (row) => [row.id]);
    },

    /** Deletes the token; every instance hears of it through the database (migration 0005) and refuses it at once. */
    async revoke(userId: string, id: string): Promise<{ message: string }> {
      if (!isId(id) || !(await store.deleteOfUser(db, userId, id))) throw notFound('Token');
      tokenStates.forgetToken(id);
      return { message: 'Token revoked' };
    },

    /** The claims of a token that exists and has not expired, or null. Looking it up proves it current. */
    async identify(token: string): Promise<TokenClaims | null> {
      const digest = digestOf(token);
      const cached = known.get(digest);
      if (cached) return cached.expiresAt * 1000 > Date.now() ? cached : null;
      const startedIn = tokenStates.generation();
      const row = await store.findByHash(db, digest);
      if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return null;
      const claims = claimsOf(row);
      if (known.size >= CACHE_LIMIT) known.delete(known.keys().next().value as string);
      known.set(digest, claims);
      tokenStates.remember(claims, startedIn);
      return claims;
    },

    /** Whether a token identified earlier still exists and has not expired. */
    holds: (claims: TokenClaims) => (claims.expiresAt * 1000 > Date.now() ? store.holds(db, claims.jti) : Promise.resolve(false)),

    touch: (claims: TokenClaims) => store.touch(db, claims.jti),
  };
}

export type AccessTokensService = ReturnType<typeof createAccessTokensService>;
