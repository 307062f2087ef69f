import { useEffect, useRef } from 'preact/hooks';

/** One change in a project, as its live stream reports it. */
export interface ProjectEvent {
  type: string;
  taskId?: string | null;
}

/**
 * Calls `onEvent` for every change in the project made while the page is open, and returns a short
 * status for the page header. The project's event stream is not on the server yet: until it is,
 * this subscribes to nothing and says so.
 */
export function useProjectEvents(projectId: string, onEvent: (event: ProjectEvent) => void): string {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => undefined, [projectId]);
  return 'Live updates unavailable';
}
