import { createParser } from 'eventsource-parser';
import { fromBody, TasklaneError } from './errors';
import type { ProcedureOutputs } from './generated/api';

/** One change in a project, as the live stream and the activity history give it. */
export type ProjectEvent = ProcedureOutputs['ProjectEvent'];
/** One notification, as the live stream and `notifications.list` give it. */
export type Notification = ProcedureOutputs['notifications.markRead'];

export interface SubscribeInput {
  projectId: string;
  /** Replay every event after this id first, then continue live (no gap, no repeat). */
  lastEventId?: string | undefined;
}

export interface SubscribeHandlers {
  onEvent: (event: ProjectEvent) => void;
  /** The stream ended for good (401, 404, the project deleted): no reconnect follows. */
  onError?: (error: TasklaneError) => void;
}

export interface NotificationSubscribeInput {
  /** Replay every notification after this event id first (the stream's `lastEventId`), then continue live. */
  lastEventId?: string | undefined;
}

/** An import's progress, on its creator's notification stream (from the instance running it). */
export interface ImportProgressEvent {
  id: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed';
  done: number;
  total: number;
  projectId: string | null;
}

export interface NotificationHandlers {
  onNotification: (notification: Notification) => void;
  /** Each step of your imports (every thousand tasks written, and the end), as the server runs them. */
  onImportProgress?: ((progress: ImportProgressEvent) => void) | undefined;
  /** The stream ended for good (401, 403): no reconnect follows. */
  onError?: (error: TasklaneError) => void;
}

export interface EventSubscription {
  /** The id of the last event delivered: resume from it with `subscribe({ projectId, lastEventId })`. */
  readonly lastEventId: string | undefined;
  close(): void;
}

export interface StreamContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  authorization: () => Promise<Record<string, string>>;
}

const RECONNECT_MS = [250, 1000, 3000, 10_000];

/**
 * Follows `GET /api/v1/projects/{id}/events` with `fetch` (no EventSource needed: headers can carry
 * the token and `Last-Event-ID`). Resolves once the server has subscribed the stream (its
 * `: connected` comment), so a change made after `await subscribe(…)` is always delivered. A dropped
 * connection or a `stream-error` frame reconnects with `Last-Event-ID`, replaying what was missed.
 */
export function subscribe(context: StreamContext, input: SubscribeInput, handlers: SubscribeHandlers): Promise<EventSubscription> {
  return follow<ProjectEvent>(context, `/api/v1/projects/${encodeURIComponent(input.projectId)}/events`, input.lastEventId, {
    onEvent: handlers.onEvent,
    onError: handlers.onError,
    isLast: (event) => event.type === 'project.deleted',
  });
}

/** Follows `GET /api/v1/notifications/events`, the caller's notifications, as `subscribe` follows a project's events. */
export function subscribeNotifications(context: StreamContext, input: NotificationSubscribeInput, handlers: NotificationHandlers): Promise<EventSubscription> {
  return follow<Notification>(context, '/api/v1/notifications/events', input.lastEventId, {
    onEvent: handlers.onNotification,
    onError: handlers.onError,
    isLast: () => false,
    others: { 'import.progress': (data) => handlers.onImportProgress?.(data as ImportProgressEvent) },
  });
}

function follow<Event>(
  context: StreamContext,
  path: string,
  from: string | undefined,
  handlers: {
    onEvent: (event: Event) => void;
    onError?: ((error: TasklaneError) => void) | undefined;
    isLast: (event: Event) => boolean;
    /** Events of these names are not `Event`s: each goes to its own handler (never counted as the last id). */
    others?: Record<string, (data: unknown) => void>;
  },
): Promise<EventSubscription> {
  const controller = new AbortController();
  let lastEventId = from;
  let closed = false;
  const subscription: EventSubscription = {
    get lastEventId() {
      return lastEventId;
    },
    close() {
      closed = true;
      controller.abort();
    },
  };
  const url = `${context.baseUrl}${path}`;

  /** One connection: resolves when it ends (true: reconnect), calls `connected` once subscribed. */
  async function connect(connected: () => void): Promise<boolean> {
    const response = await context.fetch(url, {
      headers: { accept: 'text/event-stream', ...(await context.authorization()), ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal: controller.signal,
    });
    if (!response.ok || !response.body) {
      const body: unknown = await response.json().catch(() => undefined);
      throw fromBody(response.status, body, response.headers);
    }
    let reconnect = true;
    const parser = createParser({
      onComment: (comment) => {
        if (comment.trim() === 'connected') connected();
      },
      onEvent: (message) => {
        if (message.event === 'stream-error') return; // the server closes next; we resume from lastEventId
        const other = message.event ? handlers.others?.[message.event] : undefined;
        if (other) return other(JSON.parse(message.data));
        const event = JSON.parse(message.data) as Event;
        if (message.id) lastEventId = message.id;
        handlers.onEvent(event);
        if (handlers.isLast(event)) reconnect = false;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return reconnect;
      parser.feed(value);
    }
  }

  return new Promise<EventSubscription>((resolve, reject) => {
    let started = false;
    const connected = () => {
      if (!started) {
        started = true;
        resolve(subscription);
      }
    };
    void (async () => {
      let attempt = 0;
      while (!closed) {
        try {
          const again = await connect(() => {
            attempt = 0;
            connected();
          });
          if (!again) break;
          // The server ended the stream (a restart, a slow-consumer cut-off): resume shortly.
          await new Promise((done) => setTimeout(done, RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)]));
          attempt += 1;
        } catch (error) {
          if (closed) return;
          const failure = TasklaneError.from(error);
          // Refusals end the subscription; a lost connection or a busy server is retried.
          const transient = failure.code === 'CLIENT_ERROR' || failure.httpStatus === 429 || (failure.httpStatus ?? 0) >= 500;
          if (!transient || !started) {
            if (!started) reject(failure);
            else handlers.onError?.(failure);
            controller.abort();
            return;
          }
          const wait = failure.retryAfter !== undefined ? failure.retryAfter * 1000 : RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)]!;
          attempt += 1;
          await new Promise((done) => setTimeout(done, wait));
        }
      }
      closed = true;
    })();
  });
}
