import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { DomainError, notFound } from '../errors';
import type { ResponseMeta } from './response-meta';

/**
 * A resource's version is its `updatedAt`. Every write moves it strictly forward (`nextVersion`),
 * so two versions of one row never share an ETag, even within one millisecond.
 */
export const etagOf = (updatedAt: Date | string): string => `"${new Date(updatedAt).getTime().toString(36)}"`;

/** The versions an `If-Match` header accepts; undefined when absent or `*` (any current version). */
export function acceptedVersions(ifMatch: string | undefined): Date[] | undefined {
  if (ifMatch === undefined) return undefined;
  const tags = ifMatch.split(',').map((tag) => tag.trim());
  if (tags.includes('*')) return undefined;
  // A weak or malformed tag never matches (If-Match compares strongly), so the write answers 412.
  return tags.flatMap((tag) => {
    const match = /^"([0-9a-z]{1,12})"$/.exec(tag);
    const time = match?.[1] ? Number.parseInt(match[1], 36) : Number.NaN;
    return Number.isSafeInteger(time) ? [new Date(time)] : [];
  });
}

/** `updatedAt` for a write of a row read (and locked) at `previous`: now, but always after it. */
export const nextVersion = (previous: Date, now = new Date()): Date => new Date(Math.max(now.getTime(), previous.getTime() + 1));

/** The same rule in SQL, for writes of many rows at once. */
export const nextVersionSql = (column: PgColumn): SQL<Date> => sql`greatest(now(), ${column} + interval '1 millisecond')`;

/**
 * Checks the version of the row a write will replace: one read under its lock (`SELECT … FOR
 * UPDATE`) in the write's own transaction, or one a compare-and-set write applies to only if it is
 * still current (a task's update), so no other write can slip in between check and write: 404 when
 * it is gone, 412 with the current ETag (in the header and the message) when If-Match named other versions.
 */
export function requireVersion<T extends { updatedAt: Date }>(current: T | undefined, versions: Date[] | undefined, what: string): T {
  if (!current) throw notFound(what);
  if (versions && !versions.some((version) => version.getTime() === current.updatedAt.getTime())) {
    const etag = etagOf(current.updatedAt);
    throw new DomainError(
      'PRECONDITION_FAILED',
      `${what} has changed since you read it (If-Match is stale); its current version is ${etag}`,
      'STALE_VERSION',
      { etag },
    );
  }
  return current;
}

/** Sets the response's ETag from the resource's `updatedAt` and returns the resource. */
export function withETag<T extends { updatedAt: string }>(response: ResponseMeta, resource: T): T {
  response.headers.etag = etagOf(resource.updatedAt);
  return resource;
}
