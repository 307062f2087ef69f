import type { Db } from '@tasklane/db';
import type { AuthResponse, LoginInput, RegisterInput, UpdateMeInput, User } from '@tasklane/schemas';
import { isUniqueViolation } from '../lib/db-errors';
import { newId } from '../lib/ids';
import { DomainError } from '../errors';
import type { PasswordHasher } from './password';
import * as store from './store';
import { createTokenStateCache, type TokenStateCache } from './token-state';
import type { TokenClaims, TokenService } from './tokens';

const toUser = (row: { id: string; name: string; email: string }): User => ({ id: row.id, name: row.name, email: row.email });

const invalidCredentials = () => new DomainError('UNAUTHORIZED', 'Invalid email or password', 'INVALID_CREDENTIALS');

const emailTaken = () => new DomainError('CONFLICT', 'This email is already registered', 'EMAIL_TAKEN');

/** A registered user with this email, without credentials: how another resource (an invitation) finds one. */
export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const row = await store.findUserByEmail(db, email);
  return row && toUser(row);
}

/** `tokenStates` remembers tokens proven current; without one (the CLI) every check asks the database. */
export function createAuthService(db: Db, passwords: PasswordHasher, tokens: TokenService, tokenStates: TokenStateCache = createTokenStateCache(0)) {
  async function respond(user: { id: string; name: string; email: string; tokenVersion: number }): Promise<AuthResponse> {
    const { token, expiresIn } = await tokens.issue(user.id, user.tokenVersion);
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, user: toUser(user) };
  }

  return {
    async register(input: RegisterInput): Promise<AuthResponse> {
      if (await store.findUserByEmail(db, input.email)) throw emailTaken();
      const passwordHash = await passwords.hash(input.password);
      try {
        const user = await store.insertUser(db, { id: newId(), name: input.name, email: input.email, passwordHash });
        return await respond(user);
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
    },

    async login(input: LoginInput): Promise<AuthResponse> {
      const user = await store.findUserByEmail(db, input.email);
      if (!user) {
        await passwords.verifyAgainstDummy(input.password);
        throw invalidCredentials();
      }
      if (!(await passwords.verify(input.password, user.passwordHash))) throw invalidCredentials();
      return respond(user);
    },

    /** The operator's reset (CLI `reset-password`): a new password, and every existing token revoked. */
    async resetPassword(email: string, password: string): Promise<User> {
      const user = await store.findUserByEmail(db, email.trim().toLowerCase());
      if (!user) throw new DomainError('NOT_FOUND', 'No user with this email', 'USER_NOT_FOUND');
      const updated = await store.replacePassword(db, user.id, await passwords.hash(password));
      tokenStates.forgetUser(user.id);
      return toUser(updated ?? user);
    },

    async me(userId: string): Promise<User> {
      const user = await store.findUserById(db, userId);
      if (!user) throw new DomainError('UNAUTHORIZED', 'Missing, invalid or expired token');
      return toUser(user);
    },

    /**
     * Name at will; email and password only with the current password. A new password revokes
     * every token issued before it, the one of this request included: the client logs in again.
     */
    async updateMe(userId: string, { currentPassword, password, ...patch }: UpdateMeInput): Promise<User> {
      const user = await store.findUserById(db, userId);
      if (!user) throw new DomainError('UNAUTHORIZED', 'Missing, invalid or expired token');
      if (currentPassword !== undefined && !(await passwords.verify(currentPassword, user.passwordHash))) {
        throw new DomainError('FORBIDDEN', 'The current password is wrong', 'INVALID_CURRENT_PASSWORD');
      }
      if (patch.email !== undefined && patch.email !== user.email && (await store.findUserByEmail(db, patch.email))) throw emailTaken();
      try {
        const updated = await store.updateUser(db, userId, {
          ...patch,
          ...(password !== undefined ? { passwordHash: await passwords.hash(password) } : {}),
        });
        if (!updated) throw new DomainError('UNAUTHORIZED', 'Missing, invalid or expired token');
        if (password !== undefined) tokenStates.forgetUser(userId);
        return toUser(updated);
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
    },

    /** Revokes the presented token, in the database, so every instance refuses it from now on. */
    async logout(userId: string, token: Pick<TokenClaims, 'jti' | 'expiresAt'>): Promise<{ message: string }> {
      await store.revokeToken(db, { jti: token.jti, userId, expiresAt: new Date(token.expiresAt * 1000) });
      tokenStates.forgetToken(token.jti);
      return { message: 'Logged out' };
    },

    /** The claims of an `Authorization: Bearer` header whose signature and expiry hold (no database). */
    async identify(authorization: string | undefined): Promise<TokenClaims | null> {
      const match = authorization ? /^Bearer ([A-Za-z0-9_.-]{1,4096})$/i.exec(authorization.trim()) : null;
      if (!match?.[1]) return null;
      return (await tokens.verify(match[1])) ?? null;
    },

    /** Whether a verified token still holds in the database: its user exists and has not revoked it since. */
    async isCurrent(claims: TokenClaims): Promise<boolean> {
      if (tokenStates.holds(claims)) return true;
      const startedIn = tokenStates.generation();
      const state = await store.findTokenState(db, claims.userId, claims.jti);
      const current = state !== undefined && !state.revoked && state.tokenVersion === claims.tokenVersion;
      if (current) tokenStates.remember(claims, startedIn);
      return current;
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
