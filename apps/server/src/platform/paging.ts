import { DEFAULT_PAGE_SIZE } from '@tasklane/schemas';
import { DomainError } from './errors';
import type { ResponseMeta } from './response-meta';
import { isId } from './ids';

export type CursorValue = string | number | null;

export interface Page<T> {
  items: T[];
  /** Opaque cursor of the next page, null on the last page. */
  nextCursor: string | null;
}

export const pageSize = (limit: number | undefined): number => limit ?? DEFAULT_PAGE_SIZE;

/** A cursor is the sort key of the last row served, so the next page starts strictly after it. */
export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Checks of one cursor position: a cursor is only used in SQL once each value has the column's type. */
export type CursorCheck = (value: unknown) => boolean;

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const isTimestamp: CursorCheck = (value) => typeof value === 'string' && ISO_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));

export const cursorChecks = {
  id: (value: unknown) => typeof value === 'string' && isId(value),
  timestamp: isTimestamp,
  nullableTimestamp: (value: unknown) => value === null || isTimestamp(value),
  positiveInteger: (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value > 0,
  text: (value: unknown) => typeof value === 'string' && !value.includes('\u0000'),
  oneOf:
    (allowed: readonly string[]): CursorCheck =>
    (value) =>
      typeof value === 'string' && allowed.includes(value),
} satisfies Record<string, CursorCheck | ((...args: never[]) => CursorCheck)>;

/** The values of a cursor, each checked against its position's type; anything else is a 400. */
export function decodeCursor(raw: string | undefined, checks: CursorCheck[]): CursorValue[] | undefined {
  if (raw === undefined) return undefined;
  try {
    const values: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(values) && values.length === checks.length && values.every((value, index) => checks[index]?.(value))) {
      return values as CursorValue[];
    }
  } catch {
    // fall through to the 400 below
  }
  throw new DomainError('BAD_REQUEST', 'Invalid cursor: use the cursor from the Link header of the previous page', 'INVALID_CURSOR');
}

/** The cursor of a list ordered by id alone. */
export const decodeIdCursor = (raw: string | undefined): string | undefined =>
  decodeCursor(raw, [cursorChecks.id])?.[0] as string | undefined;

/** Fetches one row more than the page size to learn whether a next page exists. */
export function toPage<Row, T>(rows: Row[], limit: number, map: (row: Row) => T, cursorOf: (row: Row) => CursorValue[]): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    items: pageRows.map(map),
    nextCursor: hasMore && last !== undefined ? encodeCursor(cursorOf(last)) : null,
  };
}

/** Announces the next page as RFC 8288 `Link: <…>; rel="next"`, keeping the request's other query values. */
export function announceNextPage(response: ResponseMeta, requestUrl: string, nextCursor: string | null): void {
  if (!nextCursor) return;
  const url = new URL(requestUrl, 'http://localhost');
  url.searchParams.set('cursor', nextCursor);
  response.headers.link = `<${url.pathname}${url.search}>; rel="next"`;
}
