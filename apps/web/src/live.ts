import type { EventSubscription } from '@tasklane/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { HistoryEntry } from './data';
import { client, describeError } from './session';

/** What the pages read of a change in the project (the stream delivers whole activity entries). */
export type ProjectEvent = Pick<HistoryEntry, 'id' | 'type' | 'taskId' | 'actorId'>;

/**
 * Calls `onEvent` for every change in the project while the page is open, through the SDK's
 * subscription to the project's event stream (it resumes from the last event after a reconnect,
 * so nothing is missed). Returns a short status for the page header.
 */
export function useProjectEvents(projectId: string, onEvent: (event: ProjectEvent) => void): string {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [status, setStatus] = useState('Connecting…');

  useEffect(() => {
    let closed = false;
    let subscription: EventSubscription | undefined;
    setStatus('Connecting…');
    client.events
      .subscribe(
        { projectId },
        {
          onEvent: (event) => handler.current(event),
          onError: (error) => setStatus(`Live updates stopped: ${describeError(error)}`),
        },
      )
      .then(
        (started) => {
          subscription = started;
          if (closed) started.close();
          else setStatus('Live');
        },
        (error: unknown) => setStatus(`Live updates stopped: ${describeError(error)}`),
      );
    return () => {
      closed = true;
      subscription?.close();
    };
  }, [projectId]);

  return status;
}
