import { createTasklaneClient, TasklaneError } from '@tasklane/sdk';
import type { User } from '@tasklane/schemas';
import { t } from './i18n';

const TOKEN_KEY = 'tasklane.token';

/**
 * Whether the server answered the app's last request (any answer, an error too) or could not be
 * reached: the browser's own online flag misses a server that is down, or a network that looks up but
 * carries nothing. While out of reach, the server is asked every few seconds whether it is back.
 */
let reachable = true;
let probe: ReturnType<typeof setInterval> | undefined;
const reachabilityListeners = new Set<(reachable: boolean) => void>();
const PROBE_MS = 5000;

let probing = false;
const PROBE_TIMEOUT_MS = 4000;

function setReachable(next: boolean) {
  if (next === reachable) return;
  reachable = next;
  if (!next && !probe) {
    // One probe at a time, each given up after a while: a network that carries nothing does not pile them up.
    probe = setInterval(() => {
      if (probing) return;
      probing = true;
      void watchedFetch('/healthz', { cache: 'no-store', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
        .catch(() => setReachable(false))
        .finally(() => (probing = false));
    }, PROBE_MS);
  }
  if (next && probe) {
    clearInterval(probe);
    probe = undefined;
  }
  for (const listener of reachabilityListeners) listener(next);
}

/** A gateway's answer for a server behind it that is down or too slow: no answer of the server's own. */
const GATEWAY_FAILURES = new Set([502, 503, 504]);

async function watchedFetch(...args: Parameters<typeof fetch>): Promise<Response> {
  try {
    const response = await globalThis.fetch(...args);
    setReachable(!GATEWAY_FAILURES.has(response.status));
    return response;
  } catch (error) {
    // A request the app itself gave up (its AbortController) says nothing about the server; a timeout does.
    if (!(error instanceof DOMException && error.name === 'AbortError')) setReachable(false);
    throw error;
  }
}

export const isServerReachable = () => reachable;
export function onReachabilityChange(listener: (reachable: boolean) => void): () => void {
  reachabilityListeners.add(listener);
  return () => reachabilityListeners.delete(listener);
}

/** The one SDK client of the app; every API call and the live stream go through it. */
export const client = createTasklaneClient({
  baseUrl: window.location.origin,
  token: window.localStorage.getItem(TOKEN_KEY) ?? undefined,
  fetch: watchedFetch,
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

/**
 * Shown on the login page after a password change, which ends every session, this one included.
 * A function (the text in the language now); signOut takes it as it is.
 */
export const PASSWORD_CHANGED_NOTICE = () => t('session.passwordChanged');

/** `notice`: its text, or a function that says it in the language at the time of signing out. */
export function signOut(notice?: string | (() => string)) {
  window.localStorage.removeItem(TOKEN_KEY);
  client.setToken(undefined);
  announce(null, typeof notice === 'function' ? notice() : notice);
}

export const hasStoredToken = () => client.getToken() !== undefined;

/** Whose session the stored token is (its `sub`), read from the token itself; undefined without one. */
export function storedTokenSubject(): string | undefined {
  try {
    const payload = window.localStorage.getItem(TOKEN_KEY)?.split('.')[1];
    if (!payload) return undefined;
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: unknown };
    return typeof claims.sub === 'string' ? claims.sub : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a call failed for want of the server (offline, or it is down), not by its answer. */
export const isUnreachable = (error: unknown): boolean => TasklaneError.from(error).code === 'CLIENT_ERROR';

/** A function, as PASSWORD_CHANGED_NOTICE: the text in the language at the time. */
export const EXPIRED_NOTICE = () => t('session.expired');

/**
 * The message to show for a failed call: the server's own `message` (never swallowed).
 * A 401 on a signed-in call means the token expired or was revoked: back to the login page.
 */
export function describeError(error: unknown): string {
  const failure = TasklaneError.from(error);
  if (failure.code === 'UNAUTHORIZED' && hasStoredToken()) signOut(EXPIRED_NOTICE);
  if (failure.code === 'CLIENT_ERROR') return t('session.unreachable', { reason: failure.message });
  const fields = failure.issues?.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
  return fields.length > 0 && !fields.every((field) => failure.message.includes(field))
    ? `${failure.message} (${fields.join('; ')})`
    : failure.message;
}
