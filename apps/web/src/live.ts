import { useEffect, useRef, useState } from 'preact/hooks';
import type { HistoryEntry } from './data';
import { client, describeError } from './session';

/** What the pages read of a change in the project (the stream delivers whole activity entries). */
export type ProjectEvent = Pick<HistoryEntry, 'id' | 'type' | 'taskId' | 'actorId'>;

const STATE_LABELS = { connecting: 'Connecting…', pending: 'Live', idle: 'Live' } as const;

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
    const subscription = client.projects.events.subscribe(
      { projectId },
      {
        onData: (event) => handler.current(event.data),
        onConnectionStateChange: (state) => {
          if (state.state === 'connecting' && state.error) setStatus('Reconnecting…');
          else setStatus(STATE_LABELS[state.state]);
        },
        onError: (error) => setStatus(`Live updates stopped: ${describeError(error)}`),
      },
    );
    return () => subscription.unsubscribe();
  }, [projectId]);

  return status;
}
