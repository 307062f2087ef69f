import type { Db } from '@tasklane/db';
import { ACCESS_TOKEN_PREFIX, type AuthResponse, type LoginInput, type RegisterInput, type Session, isLocale, type Me, type UpdateMeInput, type User } from '@tasklane/schemas';
import type { AccessTokensService } from '../access-tokens/service';
import { type BackgroundQueue, createBackgroundQueue } from '../../platform/background';
import { isUniqueViolation } from '../../platform/db-errors';
import { isId, newId } from '../../platform/ids';
import { decodeIdCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { DomainError, notFound } from '../../platform/errors';
import { createLastUsedRecorder } from './last-used';
import type { PasswordHasher } from './password';
import * as store from './store';
import { createTokenStateCache, type TokenStateCache } from '../credentials/token-state';
import { bearerTokenOf, type TokenClaims, type TokenService } from '../credentials/tokens';

/** The client a session is started for, as the server saw it. */
export interface ClientInfo {
  ip?: string | undefined;
  userAgent?: string | undefined;
}

export interface AuthOptions {
  /** PASSWORD_LOGIN: false refuses register and log in with a password (single sign-on only). */
  passwordLogin?: boolean;
  /** Personal access tokens (`tl_pat_…`); without them such a bearer is refused like any unknown token. */
  accessTokens?: AccessTokensService;
  /** Work off the request's path (last-used stamps); without it (the CLI) failures are dropped. */
  background?: BackgroundQueue;
}

const USER_AGENT_MAX = 512;

const toUser = (row: { id: string; name: string; email: string }): User => ({ id: row.id, name: row.name, email: row.email });
/** Oneself: the user and their language (a value no longer offered reads as the browser's). */
const toMe = (row: { id: string; name: string; email: string; locale: string | null }): Me => ({
  ...toUser(row),
  locale: isLocale(row.locale) ? row.locale : null,
});

const toSession = (row: store.SessionRow, currentId: string | undefined): Session => ({
  id: row.id,
  method: row.method === 'oidc' ? 'oidc' : 'password',
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  userAgent: row.userAgent,
  ip: row.ip,
  current: row.id === currentId,
});

const invalidCredentials = () => new DomainError('UNAUTHORIZED', 'Invalid email or password', 'INVALID_CREDENTIALS');

const emailTaken = () => new DomainError('CONFLICT', 'This email is already registered', 'EMAIL_TAKEN');

/** A registered user with this email, without credentials: how another resource (an invitation) finds one. */
export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const row = await store.findUserByEmail(db, email);
  return row && toUser(row);
}

const unauthorized = () => new DomainError('UNAUTHORIZED', 'Missing, invalid or expired token');

export const passwordLoginDisabled = () =>
  new DomainError('FORBIDDEN', 'Password sign-in is turned off on this server: use single sign-on', 'PASSWORD_LOGIN_DISABLED');

/** `tokenStates` remembers tokens proven current; without one (the CLI) every check asks the database. */
export function createAuthService(
  db: Db,
  passwords: PasswordHasher,
  tokens: TokenService,
  tokenStates: TokenStateCache = createTokenStateCache(0),
  options: AuthOptions = {},
) {
  const { accessTokens, passwordLogin = true, background = createBackgroundQueue(() => {}) } = options;
  const lastUsed = createLastUsedRecorder(
    (claims) => (claims.grant ? accessTokens!.touch(claims) : store.touchSession(db, claims.sessionId!)),
    background,
  );

  /** A new session of the user and its login token: the response of login, register and single sign-on. */
  async function startSession(user: { id: string; name: string; email: string; tokenVersion: number }, method: 'password' | 'oidc', client: ClientInfo = {}): Promise<AuthResponse> {
    const sessionId = newId();
    const now = new Date();
    await store.insertSession(db, {
      id: sessionId,
      userId: user.id,
      method,
      userAgent: client.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
      ip: client.ip ?? null,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: new Date(now.getTime() + tokens.ttlSeconds * 1000),
    });
    const { token, expiresIn } = await tokens.issue(user.id, user.tokenVersion, sessionId);
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, user: toUser(user) };
  }


  return {
    startSession,

    /** For single sign-on: the account with this (normalised) email, or with this id. */
    accountByEmail: (email: string) => store.findUserByEmail(db, email),
    accountById: (id: string) => store.findUserById(db, id),

    /** For single sign-on: a new account without a password (its owner may set one through a reset). */
    createAccount: (account: { name: string; email: string }) => store.insertUser(db, { id: newId(), ...account, passwordHash: null }),

    async register(input: RegisterInput, client?: ClientInfo): Promise<AuthResponse> {
      if (!passwordLogin) throw passwordLoginDisabled();
      if (await store.findUserByEmail(db, input.email)) throw emailTaken();
      const passwordHash = await passwords.hash(input.password);
      try {
        const user = await store.insertUser(db, { id: newId(), name: input.name, email: input.email, passwordHash });
        return await startSession(user, 'password', client);
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
    },

    async login(input: LoginInput, client?: ClientInfo): Promise<AuthResponse> {
      if (!passwordLogin) throw passwordLoginDisabled();
      const user = await store.findUserByEmail(db, input.email);
      // No user, or one made through single sign-on with no password yet: the same work and answer.
      if (!user?.passwordHash) {
        await passwords.verifyAgainstDummy(input.password);
        throw invalidCredentials();
      }
      if (!(await passwords.verify(input.password, user.passwordHash))) throw invalidCredentials();
      return startSession(user, 'password', client);
    },

    /** The operator's reset (CLI `reset-password`): a new password, every session signed out (personal access tokens stay). */
    async resetPassword(email: string, password: string): Promise<User> {
      const user = await store.findUserByEmail(db, email.trim().toLowerCase());
      if (!user) throw new DomainError('NOT_FOUND', 'No user with this email', 'USER_NOT_FOUND');
      const passwordHash = await passwords.hash(password);
      // Every login token issued before is revoked (token version) and every session signed out.
      const updated = await db.transaction((tx) => store.replacePasswordSigningOut(tx, user.id, passwordHash));
      tokenStates.forgetUser(user.id);
      return toUser(updated ?? user);
    },

    async me(userId: string): Promise<Me> {
      const user = await store.findUserById(db, userId);
      if (!user) throw unauthorized();
      return toMe(user);
    },

    /**
     * Name at will; email and password only with the current password. A new password signs every
     * session out, the one of this request included (the client logs in again), and ends every
     * reset link sent before it; personal access tokens stay, as after a reset.
     */
    async updateMe(userId: string, { currentPassword, password, ...patch }: UpdateMeInput): Promise<Me> {
      const user = await store.findUserById(db, userId);
      if (!user) throw unauthorized();
      if (currentPassword !== undefined && !(user.passwordHash && (await passwords.verify(currentPassword, user.passwordHash)))) {
        throw new DomainError('FORBIDDEN', 'The current password is wrong', 'INVALID_CURRENT_PASSWORD');
      }
      if (patch.email !== undefined && patch.email !== user.email && (await store.findUserByEmail(db, patch.email))) throw emailTaken();
      try {
        const passwordHash = password !== undefined ? await passwords.hash(password) : undefined;
        const updated = await db.transaction(async (tx) => {
          const row = await store.updateUser(tx, userId, { ...patch, ...(passwordHash ? { passwordHash } : {}) });
          if (row && passwordHash) await store.endSignInsOf(tx, userId);
          return row;
        });
        if (!updated) throw unauthorized();
        if (passwordHash) tokenStates.forgetUser(userId);
        return toMe(updated);
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
    },

    /** Signs the presented token's session out (a token from before sessions is revoked by its jti), on every instance. */
    async logout(userId: string, token: Pick<TokenClaims, 'jti' | 'expiresAt' | 'sessionId'>): Promise<{ message: string }> {
      if (token.sessionId) await store.deleteSession(db, userId, token.sessionId);
      else await store.revokeToken(db, { jti: token.jti, userId, expiresAt: new Date(token.expiresAt * 1000) });
      tokenStates.forgetToken(token.jti);
      return { message: 'Logged out' };
    },

    /** The user's signed-in sessions, newest first; `current` marks the one of the request. */
    async listSessions(userId: string, currentSessionId: string | undefined, query: { limit?: number; cursor?: string }): Promise<Page<Session>> {
      const limit = pageSize(query.limit);
      const rows = await store.listSessions(db, userId, decodeIdCursor(query.cursor), limit + 1);
      return toPage(rows, limit, (row) => toSession(row, currentSessionId), (row) => [row.id]);
    },

    /** Signs one session out, on every instance (its token then gets 401). */
    async revokeSession(userId: string, sessionId: string): Promise<{ message: string }> {
      if (!isId(sessionId) || !(await store.deleteSession(db, userId, sessionId))) throw notFound('Session');
      tokenStates.forgetToken(sessionId);
      return { message: 'Session signed out' };
    },

    /** Signs every other session of the user out; the request's own stays. */
    async revokeOtherSessions(userId: string, currentSessionId: string | undefined): Promise<{ message: string }> {
      const ended = await store.deleteSessionsOf(db, userId, currentSessionId);
      for (const id of ended) tokenStates.forgetToken(id);
      return { message: `Signed out of ${ended.length} other session${ended.length === 1 ? '' : 's'}` };
    },

    /** The claims of an `Authorization: Bearer` header: a login token whose signature and expiry hold, or a known personal access token. */
    async identify(authorization: string | undefined): Promise<TokenClaims | null> {
      const token = authorization ? bearerTokenOf(authorization) : undefined;
      if (!token) return null;
      if (token.startsWith(ACCESS_TOKEN_PREFIX)) return (await accessTokens?.identify(token)) ?? null;
      return (await tokens.verify(token)) ?? null;
    },

    /**
     * Whether identified claims still hold in the database: a login token's user exists, has not
     * changed password since, and its session is signed in (or, from before sessions, it was not
     * logged out); a personal access token still exists and has not expired.
     */
    async isCurrent(claims: TokenClaims): Promise<boolean> {
      let current = tokenStates.holds(claims);
      if (!current) {
        const startedIn = tokenStates.generation();
        if (claims.grant) current = (await accessTokens?.holds(claims)) ?? false;
        else {
          const state = await store.findTokenState(db, claims.userId, claims.jti, claims.sessionId);
          current = state !== undefined && !state.revoked && state.tokenVersion === claims.tokenVersion && (!claims.sessionId || state.signedIn);
        }
        if (current) tokenStates.remember(claims, startedIn);
      }
      if (current && (claims.grant || claims.sessionId)) lastUsed.note(claims);
      return current;
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
