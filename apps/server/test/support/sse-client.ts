/** A minimal SSE reader for tests: records events and comments of one stream read with fetch. */
export interface ServerSentEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface OpenedStream {
  status: number;
  headers: Headers;
  /** The JSON body of a refused request. */
  errorBody?: unknown;
  events: ServerSentEvent[];
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Waits until at least `count` events arrived. */
  waitForEvents(count: number, timeoutMs?: number): Promise<ServerSentEvent[]>;
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Splits a stream's bytes into events and comments as they arrive; `onBlock` is called after each block. */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';

  constructor(
    readonly events: ServerSentEvent[] = [],
    readonly comments: string[] = [],
    private readonly onBlock: () => void = () => {},
  ) {}

  push(chunk: Uint8Array): void {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    let boundary;
    while ((boundary = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, boundary);
      this.buffer = this.buffer.slice(boundary + 2);
      const event: ServerSentEvent = { data: '' };
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') event.id = value;
          else if (field === 'event') event.event = value;
          else if (field === 'data') event.data = event.data ? `${event.data}\n${value}` : value;
          isEvent = isEvent || field === 'data';
        }
      }
      if (isEvent) this.events.push(event);
      this.onBlock();
    }
  }
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: ServerSentEvent[] = [];
  const comments: string[] = [];
  let changed: () => void = () => {};
  let endedFlag = false;

  const waitFor = async (predicate: () => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out; events so far: ${events.map((e) => `${e.id}:${e.event}`).join(', ')}`);
      await new Promise<void>((resolve) => {
        changed = resolve;
        setTimeout(resolve, 50);
      });
    }
  };

  if (!response.ok || !response.body) {
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      errorBody: text ? JSON.parse(text) : undefined,
      events,
      comments,
      ended: Promise.resolve(),
      waitForEvents: async () => events,
      waitFor,
      close: () => {},
    };
  }

  const ended = (async () => {
    const parser = new SseParser(events, comments, () => changed());
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.push(chunk);
    } catch {
      // aborted by close()
    }
    endedFlag = true;
    changed();
  })();

  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    ended,
    async waitForEvents(count, timeoutMs) {
      await waitFor(() => events.length >= count || endedFlag, timeoutMs);
      if (events.length < count) throw new Error(`stream ended after ${events.length} of ${count} events`);
      return events;
    },
    waitFor,
    close: () => controller.abort(),
  };
}
