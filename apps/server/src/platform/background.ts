/**
 * Work a request starts but does not wait for, run one piece after another in the order given; a
 * failure is reported to `onError` and does not stop what follows. `flush` waits for all of it
 * (before the database closes).
 */
export function createBackgroundQueue(onError: (error: unknown) => void) {
  let tail: Promise<void> = Promise.resolve();
  return {
    run(work: () => Promise<void>): void {
      tail = tail.then(work).catch(onError);
    },
    flush: (): Promise<void> => tail,
  };
}

export type BackgroundQueue = ReturnType<typeof createBackgroundQueue>;
