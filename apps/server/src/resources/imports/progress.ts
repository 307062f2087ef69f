import type { ImportProgressEvent } from '@tasklane/schemas';

type Listener = (event: ImportProgressEvent) => void;

/**
 * Import progress for the live streams of this instance: the job that runs an import tells it each
 * step (every thousand tasks written, and the end), and each open notification stream of the
 * import's creator hears it (transport/sse/notifications.ts). Kept in memory, not in the database:
 * progress is of the moment, and on PGlite the database is busy with the import's write itself.
 * With several instances a stream hears only the imports its own instance runs; `GET
 * /imports/{id}` tells every instance the outcome.
 */
export function createImportProgressHub() {
  const listeners = new Map<string, Set<Listener>>();
  return {
    publish(userId: string, event: ImportProgressEvent): void {
      for (const listener of listeners.get(userId) ?? []) listener(event);
    },
    subscribe(userId: string, listener: Listener): () => void {
      const set = listeners.get(userId) ?? new Set<Listener>();
      set.add(listener);
      listeners.set(userId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(userId);
      };
    },
  };
}

export type ImportProgressHub = ReturnType<typeof createImportProgressHub>;
