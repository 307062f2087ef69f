/**
 * A background worker's loop: `drain` runs when woken and every `pollMs`, one run at a time; a wake
 * during a run makes it run once more after, so nothing woken for is missed. `stop` ends the
 * polling and waits for the run under way; `stopped` tells a long drain to finish early. The first
 * run is at once, unless `firstRunAfterPoll` leaves it to the first poll (work that no start needs at once).
 */
export function startBackgroundWorker(options: {
  pollMs: number;
  drain: (stopped: () => boolean) => Promise<void>;
  onError: (error: unknown) => void;
  firstRunAfterPoll?: boolean;
}) {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const isStopped = () => stopped;

  async function loop(): Promise<void> {
    do {
      again = false;
      await options.drain(isStopped);
    } while (again && !stopped);
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = loop()
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
  }

  const timer = setInterval(wake, options.pollMs);
  timer.unref();
  if (!options.firstRunAfterPoll) wake();

  return {
    wake,
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** Exponential backoff after `attempts` failed attempts: base, 2×base, 4×base … capped at `maxMs`. */
export const backoffMs = (attempts: number, baseMs: number, maxMs: number): number => Math.min(baseMs * 2 ** Math.min(attempts - 1, 40), maxMs);
