import { createTasklaneClient, TasklaneError } from '@tasklane/sdk';
import type { User } from '@tasklane/schemas';

const TOKEN_KEY = 'tasklane.token';

/** The one SDK client of the app; every API call and the live stream go through it. */
export const client = createTasklaneClient({
  baseUrl: window.location.origin,
  token: window.localStorage.getItem(TOKEN_KEY) ?? undefined,
});

export type SessionListener = (user: User | null, notice?: string) => void;
const listeners = new Set<SessionListener>();

export function onSessionChange(listener: SessionListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function announce(user: User | null, notice?: string) {
  for (const listener of listeners) listener(user, notice);
}

/** Keeps the token where a reload finds it, and tells the app who is signed in. */
export function signIn(token: string, user: User) {
  window.localStorage.setItem(TOKEN_KEY, token);
  client.setToken(token);
  announce(user);
}

/** The signed-in person changed their own account (name, email): the app shows the new one. */
export function updateCurrentUser(user: User) {
  announce(user);
}

/** Shown on the login page after a password change, which ends every session, this one included. */
export const PASSWORD_CHANGED_NOTICE = 'Your password was changed and every session signed out. Log in with the new password.';

export function signOut(notice?: string) {
  window.localStorage.removeItem(TOKEN_KEY);
  client.setToken(undefined);
  announce(null, notice);
}

export const hasStoredToken = () => client.getToken() !== undefined;

export const EXPIRED_NOTICE = 'Your session has expired. Please log in again.';

/**
 * The message to show for a failed call: the server's own `message` (never swallowed).
 * A 401 on a signed-in call means the token expired or was revoked: back to the login page.
 */
export function describeError(error: unknown): string {
  const failure = TasklaneError.from(error);
  if (failure.code === 'UNAUTHORIZED' && hasStoredToken()) signOut(EXPIRED_NOTICE);
  if (failure.code === 'CLIENT_ERROR') return `The server could not be reached (${failure.message}).`;
  const fields = failure.issues?.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
  return fields.length > 0 && !fields.every((field) => failure.message.includes(field))
    ? `${failure.message} (${fields.join('; ')})`
    : failure.message;
}
