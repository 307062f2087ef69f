import { QueryClient, QueryObserver, type QueryKey } from '@tanstack/query-core';
import { useCallback, useEffect, useReducer, useState } from 'preact/hooks';
import { describeError } from './session';

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
    error: result.error ? describeError(result.error) : undefined,
    loading: result.isFetching,
    reload,
    setData,
  };
}

/** A user action: `busy` while it runs, and the server's message in `error` when it fails. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (failure) {
      setError(describeError(failure));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
