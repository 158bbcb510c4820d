/**
 * A call bounded by a deadline: settles with `start()`'s result, or rejects after `timeoutMs` with
 * `fail(late())` (a late result is dropped). A thrown or rejected error also passes through `fail`.
 */
export function withDeadline<T>(start: () => T | Promise<T>, timeoutMs: number, late: () => Error, fail: (err: unknown) => unknown): Promise<T> {
  let work: Promise<T>;
  try {
    work = Promise.resolve(start());
  } catch (err) {
    return Promise.reject(fail(err));
  }
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(fail(late())), timeoutMs);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(fail(err));
      },
    );
  });
}
