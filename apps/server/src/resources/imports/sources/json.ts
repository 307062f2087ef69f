import { finished } from 'node:stream';
import Assembler from 'stream-json/assembler.js';
import parser from 'stream-json/parser.js';
import { formatError } from '../plan';

/**
 * What `readJson` keeps of a document: for each top-level key (`''` for the elements of a document
 * that is itself an array), `true` to keep its value whole, or a function that each element of its
 * array passes through as soon as it is read (its result kept, `undefined` dropped). Other keys are
 * skipped unread.
 */
export type JsonKeep = Record<string, true | ((element: unknown) => unknown)>;

type Token = { name: string; value?: unknown };

/**
 * A kept value with strings of its own. The parser's strings are slices of the text it was given
 * (V8 shares the characters rather than copying them), so a kept id or title would hold on to the
 * whole chunk of the file it came from, and a large board's kept cards and comments to nearly the
 * whole file: measured, 190 MB of heap after the plan of a 73.5 MB board, 56 MB with this copy.
 */
const detached = <T>(value: T): T => structuredClone(value);

/**
 * The file as JSON, streamed (issue 38): an element of a large array is assembled, handed to its
 * `keep` function and let go before the next is read, and what no source reads (Trello's
 * preferences, GitHub's reactions) is never assembled, so memory holds what the plan needs rather
 * than the whole document. The result has the document's shape with only the kept keys. A file that
 * is not JSON is the 400 a broken file gets (never a 500).
 */
export function readJson(stream: NodeJS.ReadableStream, what: string, keep: JsonKeep): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const tokens = parser.asStream({ streamValues: false });
    let result: unknown;
    /** The open top-level container (depth 1 is inside it). */
    let top: Record<string, unknown> | unknown[] | undefined;
    let key = '';
    /** The value being read under `key`: assembled whole, skipped, or an array read element by element. */
    let reading: { kind: 'whole'; asm: Assembler } | { kind: 'skip'; depth: number } | { kind: 'elements'; map: (element: unknown) => unknown; kept: unknown[]; asm: Assembler | undefined } | undefined;
    let failed = false;
    const fail = (message: string) => {
      if (failed) return;
      failed = true;
      tokens.destroy();
      reject(formatError(`The file is not valid JSON, as ${what} is: ${message}`));
    };
    const store = (value: unknown) => {
      if (Array.isArray(top)) top.push(value);
      // As JSON.parse: a "__proto__" key is an own property, never the prototype.
      else Object.defineProperty(top, key, { value, writable: true, enumerable: true, configurable: true });
    };
    /** The next token of an array's element; a whole element is kept (what its `map` makes of it) and let go. */
    const keepElement = (elements: { map: (element: unknown) => unknown; kept: unknown[]; asm: Assembler | undefined }, token: Token) => {
      elements.asm!.consume(token as never);
      if (!elements.asm!.done) return;
      const kept = elements.map(elements.asm!.current);
      if (kept !== undefined) elements.kept.push(detached(kept));
      elements.asm = undefined;
    };
    const opens = (name: string) => name === 'startObject' || name === 'startArray';
    const closes = (name: string) => name === 'endObject' || name === 'endArray';

    tokens.on('data', (token: Token) => {
      if (reading?.kind === 'whole') {
        reading.asm.consume(token as never);
        if (reading.asm.done) {
          store(detached(reading.asm.current));
          reading = undefined;
        }
        return;
      }
      if (reading?.kind === 'skip') {
        if (opens(token.name)) reading.depth += 1;
        else if (closes(token.name)) reading.depth -= 1;
        if (reading.depth === 0) reading = undefined;
        return;
      }
      if (reading?.kind === 'elements') {
        if (reading.asm) {
          keepElement(reading, token);
          return;
        }
        if (token.name === 'endArray') {
          const kept = reading.kept;
          reading = undefined;
          // The document's own elements: the document ends with them.
          if (Array.isArray(top)) top = undefined;
          if (top) store(kept);
          else result = kept;
          return;
        }
        reading.asm = new Assembler();
        keepElement(reading, token);
        return;
      }
      if (top === undefined) {
        // The document: an object read key by key, an array read element by element, or a scalar.
        if (token.name === 'startObject') {
          top = {};
          result = top;
        } else if (token.name === 'startArray') {
          const map = keep[''];
          top = [];
          reading = { kind: 'elements', map: typeof map === 'function' ? map : (element) => element, kept: [], asm: undefined };
        } else {
          const asm = new Assembler();
          asm.consume(token as never);
          result = asm.current;
        }
        return;
      }
      // Inside the top-level object.
      if (token.name === 'keyValue') {
        key = String(token.value);
        return;
      }
      if (token.name === 'endObject') {
        top = undefined;
        return;
      }
      const wanted = Object.hasOwn(keep, key) ? keep[key] : undefined;
      if (typeof wanted === 'function' && token.name === 'startArray') {
        reading = { kind: 'elements', map: wanted, kept: [], asm: undefined };
      } else if (wanted) {
        const asm = new Assembler();
        asm.consume(token as never);
        if (asm.done) store(detached(asm.current));
        else reading = { kind: 'whole', asm };
      } else if (opens(token.name)) {
        reading = { kind: 'skip', depth: 1 };
      }
    });
    tokens.on('error', (error: Error) => fail(error.message));
    tokens.on('end', () => {
      if (!failed) resolve(result);
    });
    // The stored file failing to be read (or closing before its end) is the server's: the job retries.
    finished(stream, (error) => {
      if (!error || failed) return;
      failed = true;
      tokens.destroy();
      reject(error);
    });
    stream.pipe(tokens);
  });
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
export const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The keys of `record` a source reads: the rest of a large file's element is let go as it is read. */
export function pickKeys(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(record, key)) picked[key] = record[key];
  return picked;
}
