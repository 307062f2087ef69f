import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './session';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
  /** Replaces the data locally (optimistic changes, live events). */
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/** Runs `load` whenever a key changes; a stale answer (keys changed meanwhile) is dropped. */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const run = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (run !== latest.current) return;
        setDataState(() => value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (run !== latest.current) return;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    // `load` closes over the keys: re-running on them (and on reload) is the point.
  }, [...keys, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  const setData = useCallback((update: (current: T | undefined) => T | undefined) => setDataState(update), []);
  return { data, error, loading, reload, setData };
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
