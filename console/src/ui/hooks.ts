/** Loading state for one request per view: data, error, and a reload that re-runs it. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const lastTick = useRef(tick);
  useEffect(() => {
    const run = ++latest.current;
    // A new query (its inputs changed): the last answer is not its answer, even if this one fails.
    // A reload of the same query keeps it on screen meanwhile.
    if (lastTick.current === tick) setData(undefined);
    lastTick.current = tick;
    setLoading(true);
    load().then(
      (d) => {
        if (run !== latest.current) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (run !== latest.current) return;
        setError(messageOf(e));
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/** Cursor paging: the cursors of the pages before (Previous) and the current one. */
export function useCursor(resetOn: readonly unknown[]): { cursor: string | undefined; page: number; next: (c: string) => void; prev: () => void } {
  const [stack, setStack] = useState<Array<string | undefined>>([undefined]);
  const key = JSON.stringify(resetOn);
  const seen = useRef(key);
  if (seen.current !== key) {
    seen.current = key;
    if (stack.length !== 1) setStack([undefined]);
  }
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    next: (c) => setStack((s) => [...s, c]),
    prev: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
  };
}
