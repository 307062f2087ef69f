import { QueryClient, QueryObserver, type QueryKey } from '@tanstack/query-core';
import { useCallback, useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { TasklaneError } from '@tasklane/sdk';
import { describeError, isUnreachable } from './session';
import { announce } from './ui';

/**
 * The app's one cache of server data (TanStack Query's framework-free core): every page reads
 * through it, so a board opened twice, or reopened from the palette, shows at once what it had.
 * Live events and optimistic edits write into it; nothing refetches on focus (the stream keeps it fresh).
 */
export const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 60_000, gcTime: 10 * 60_000, retry: 1, refetchOnWindowFocus: false, refetchOnReconnect: false } },
});

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
  /** Replaces the cached data (optimistic changes, live events). */
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/** The cached answer of `load` under `key`, fetched when missing or stale; re-renders on every change. */
export function useQuery<T>(key: QueryKey, load: () => Promise<T>): Loaded<T> {
  const options = queryClient.defaultQueryOptions({ queryKey: key, queryFn: load });
  const [observer] = useState(() => new QueryObserver<T, Error, T, T, QueryKey>(queryClient, options));
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  useEffect(() => observer.subscribe(() => rerender(undefined)), [observer]);
  // As TanStack's own adapters do: the newest options every render (a new key switches the query).
  useEffect(() => observer.setOptions(options));
  const result = observer.getOptimisticResult(options);
  const reload = useCallback(() => void observer.refetch(), [observer]);
  const setData = useCallback(
    (update: (current: T | undefined) => T | undefined) => queryClient.setQueryData<T>(observer.options.queryKey, (current) => update(current)),
    [observer],
  );
  return {
    data: result.data,
    // Out of reach with an answer at hand (the offline copy, or an earlier read): that answer shows,
    // and the offline banner says why it may be old.
    error: result.error && !(result.data !== undefined && isUnreachable(result.error)) ? describeError(result.error) : undefined,
    loading: result.isFetching,
    reload,
    setData,
  };
}

/**
 * A field's own copy of a server value (a name being edited, a box being ticked): it starts as the
 * value and follows it when the server's value changes, but a mount does not reset it. A plain
 * `useEffect(() => set(value), [value])` also runs once after the first paint, and on a busy machine
 * what was typed before that paint was overwritten by the value it started from.
 */
export function useFollowed<T>(value: T): [T, (next: T) => void] {
  const [own, setOwn] = useState(value);
  const seen = useRef(value);
  useEffect(() => {
    if (Object.is(seen.current, value)) return;
    seen.current = value;
    setOwn(value);
  }, [value]);
  return [own, setOwn];
}

/**
 * A name edited in place (a label's, a state's, a field's or an option's): sent on Enter or when the
 * field loses focus, and put back when it is empty or unchanged, or refused when `commit` says so by
 * resolving false (a commit that resolves nothing keeps the typed name, to be sent again).
 * Enter disables the field while the change is on its way, and a disabled field loses its focus: the
 * blur that follows must not send the same name again, since it would go with the version the first
 * change has just used and come back refused as stale (412), shown as someone else's change.
 */
export function useRename(current: string, commit: (name: string) => Promise<boolean> | void) {
  const [name, setName] = useFollowed(current);
  const sent = useRef<string | undefined>(undefined);
  const send = () => {
    const trimmed = name.trim();
    if (!trimmed || trimmed === current) return setName(current);
    sent.current = trimmed;
    void Promise.resolve(commit(trimmed)).then((ok) => ok === false && setName(current));
  };
  return {
    value: name,
    onInput: (event: { currentTarget: HTMLInputElement }) => {
      sent.current = undefined;
      setName(event.currentTarget.value);
    },
    onBlur: () => {
      if (sent.current !== name.trim()) send();
    },
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      send();
    },
  };
}

/**
 * A user action: `busy` while it runs, and the server's message in `error` when it fails. `reset`
 * clears both and leaves the actions still on their way without a say in them: their result is
 * still returned, but a late failure no longer shows (a form switched to another meanwhile).
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const generation = useRef(0);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    const started = generation.current;
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (failure) {
      if (started === generation.current) setError(describeError(failure));
      return undefined;
    } finally {
      if (started === generation.current) setBusy(false);
    }
  }, []);
  const reset = useCallback(() => {
    generation.current += 1;
    setBusy(false);
    setError(undefined);
  }, []);
  return { busy, error, setError, run, reset };
}

/**
 * An editor dialog's save (the workflow, fields and labels editors): `save(what, action)` runs one
 * change, announces `what` when it is done, and refreshes what it changed (`refresh`, also after a
 * failure: the dialog then shows the server's current state). A change refused as stale (412: its
 * If-Match named a version someone else replaced meanwhile) shows `changedElsewhere` instead of the
 * server's message. Resolves whether the change was made.
 */
export function useEditorSave(options: { changedElsewhere: string; refresh: (deleted: boolean) => void }) {
  const { busy, error, setError, run } = useAction();
  const save = async (what: string, action: () => Promise<unknown>, deleted = false): Promise<boolean> => {
    let changedElsewhere = false;
    const done =
      (await run(() =>
        action().catch((failure: unknown) => {
          if (TasklaneError.from(failure).code !== 'PRECONDITION_FAILED') throw failure;
          changedElsewhere = true;
          return undefined;
        }),
      )) !== undefined;
    if (done) announce(what);
    if (changedElsewhere) setError(options.changedElsewhere);
    options.refresh(deleted);
    return done;
  };
  return { busy, error, save };
}
