import { dehydrate, type DehydratedState, hydrate } from '@tanstack/query-core';
import type { User } from '@tasklane/schemas';
import { queryClient } from './hooks';
import { onReachabilityChange, onSessionChange, storedTokenSubject } from './session';

/**
 * The app's copy of what it last read, for opening offline (issue 39): the cache's answers and who
 * was signed in, kept in localStorage (query-core's own dehydrate and hydrate) a second after each
 * change. It is read only when the server cannot be reached — at start (the session cannot be
 * checked) or later (a request finds it down) — and then fills the cache's gaps: the pages show it
 * read-only (the banner says changes are not saved). Online, nothing of it shows: every page reads
 * the server as before. Signing out (or a session found expired) deletes it: the next person on this
 * browser never sees it.
 */

const KEY = 'tasklane.offline-copy';
/** The shape of the copy: raised when what the pages keep in the cache changes shape. */
const VERSION = 1;
/** An older answer is not kept: a week away, the board has moved on. */
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** The answers kept, the newest first: well within the browser's storage quota for a few boards. */
const MAX_QUERIES = 300;
const SAVE_DELAY_MS = 1000;

interface Copy {
  version: number;
  savedAt: number;
  user: User;
  state: DehydratedState;
}

let user: User | null = null;
/** The copy read at start, until the cache holds it (restore) or a new one replaces it on disk. */
let earlier: Copy | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

function save() {
  timer = undefined;
  // Another tab may have signed in someone else meanwhile: this tab's reads are not theirs to keep.
  if (!user || storedTokenSubject() !== user.id) return;
  // Every answer at hand, also one whose refetch failed (offline): kept as the answer it is.
  const state = dehydrate(queryClient, { shouldDehydrateQuery: (query) => query.state.data !== undefined });
  const seen = new Set(state.queries.map((query) => query.queryHash));
  // What the copy held that this visit has not read yet (another board) stays, while it is recent.
  const older = earlier?.user.id === user.id ? earlier.state.queries.filter((query) => !seen.has(query.queryHash)) : [];
  state.queries = [...state.queries, ...older]
    .filter((query) => Date.now() - query.state.dataUpdatedAt < MAX_AGE_MS)
    .sort((a, b) => b.state.dataUpdatedAt - a.state.dataUpdatedAt)
    .slice(0, MAX_QUERIES);
  for (const query of state.queries) Object.assign(query.state, { status: 'success', error: null, fetchFailureCount: 0, fetchFailureReason: null, fetchStatus: 'idle' });
  const copy: Copy = { version: VERSION, savedAt: Date.now(), user, state };
  try {
    window.localStorage.setItem(KEY, JSON.stringify(copy));
    earlier = copy;
  } catch {
    // Over the browser's quota: better no copy than a half one.
    window.localStorage.removeItem(KEY);
  }
}

function forget() {
  if (timer) clearTimeout(timer);
  timer = undefined;
  earlier = undefined;
  window.localStorage.removeItem(KEY);
}

function read(): Copy | undefined {
  try {
    const copy = JSON.parse(window.localStorage.getItem(KEY) ?? 'null') as Copy | null;
    // Only the stored session's own person's copy: never someone else's, whoever wrote it.
    return copy && copy.version === VERSION && Date.now() - copy.savedAt < MAX_AGE_MS && copy.user.id === storedTokenSubject() ? copy : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The server is out of reach: the copy fills what the cache lacks (an answer the cache holds is
 * newer and stays), marked stale so each page reads afresh once it can.
 */
function restore() {
  const copy = read();
  if (!copy || (user && copy.user.id !== user.id)) return;
  hydrate(queryClient, copy.state);
  void queryClient.invalidateQueries({ refetchType: 'none' });
}

/** Reads the copy at start and keeps it current from now on. Called once, before the app renders. */
export function keepOfflineCopy(): void {
  // read() finds none without a stored token, or for another person than the token's.
  earlier = read();
  if (!earlier) forget();
  onSessionChange((next) => {
    if (!next || next.id !== (user ?? earlier?.user)?.id) forget();
    user = next;
  });
  onReachabilityChange((reachable) => {
    if (!reachable) restore();
    // Back: what failed meanwhile on screen reads afresh (it may show the copy). The rest is kept
    // current by the live streams, which resume from their last event (live.ts) and replay the gap.
    else void queryClient.refetchQueries({ type: 'active', predicate: (query) => query.state.status === 'error' });
  });
  queryClient.getQueryCache().subscribe(() => {
    if (user && !timer) timer = setTimeout(save, SAVE_DELAY_MS);
  });
}

/** Who the copy was kept for: the person signed in, when the server cannot be reached to ask. */
export const rememberedUser = (): User | undefined => earlier?.user;
