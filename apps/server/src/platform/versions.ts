import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { DomainError, notFound } from './errors';
import type { ResponseMeta } from './response-meta';

/**
 * A resource's version is its `updatedAt`. Every write moves it strictly forward (`nextVersion`),
 * so two versions of one row never share an ETag, even within one millisecond.
 */
export const etagOf = (updatedAt: Date | string): string => `"${new Date(updatedAt).getTime().toString(36)}"`;

/**
 * One element of the If-Match list (RFC 9110 §8.8.3) and the comma after it: an entity-tag,
 * optionally weak, whose opaque part (etagc) may itself hold commas, so the list is read tag by
 * tag rather than split. Empty elements (`"a", , "b"`) are allowed, as in every HTTP list.
 */
const LIST_ELEMENT = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y;

const malformedIfMatch = () =>
  new DomainError(
    'BAD_REQUEST',
    'If-Match must be "*" alone or a comma-separated list of entity tags such as "mb3k2xa1" (RFC 9110)',
    'INVALID_IF_MATCH',
  );

/** The entity tags of an HTTP list of them, in order; undefined when the value is not such a list. */
function entityTags(header: string): { weak: boolean; opaque: string }[] | undefined {
  const tags: { weak: boolean; opaque: string }[] = [];
  LIST_ELEMENT.lastIndex = 0;
  while (LIST_ELEMENT.lastIndex < header.length) {
    const start = LIST_ELEMENT.lastIndex;
    const element = LIST_ELEMENT.exec(header);
    if (!element || LIST_ELEMENT.lastIndex === start) return undefined;
    if (element[2] !== undefined) tags.push({ weak: element[1] !== undefined, opaque: element[2] });
  }
  return tags.length === 0 ? undefined : tags;
}

/**
 * The versions an `If-Match` header accepts (RFC 9110 §13.1.1): undefined when absent or `*` (any
 * current version). `*` is only valid alone; a list holds entity tags, strong or weak, with empty
 * elements allowed as in every HTTP list. Comparison is strong: a weak tag, or one this server
 * never issues, matches nothing, so the write answers 412. Anything else (a bare word, `*` inside
 * a list, an empty header) is a 400, never read as "no precondition".
 */
export function acceptedVersions(ifMatch: string | undefined): Date[] | undefined {
  if (ifMatch === undefined) return undefined;
  if (ifMatch.trim() === '*') return undefined;
  const tags = entityTags(ifMatch);
  if (!tags) throw malformedIfMatch();
  return tags.flatMap(({ weak, opaque }) => {
    if (weak || !/^[0-9a-z]{1,12}$/.test(opaque)) return [];
    const time = Number.parseInt(opaque, 36);
    return Number.isSafeInteger(time) ? [new Date(time)] : [];
  });
}

/**
 * Whether an `If-None-Match` header names the current `etag` (RFC 9110 §13.1.2): `*`, or a tag
 * equal to it by weak comparison (`W/` ignored). A malformed value names nothing: the client then
 * gets the full answer, which is always a correct one to a conditional read.
 */
export function ifNoneMatchNames(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const current = /^(?:W\/)?"(.*)"$/.exec(etag)?.[1];
  return current !== undefined && (entityTags(ifNoneMatch)?.some(({ opaque }) => opaque === current) ?? false);
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
  return withVersionETag(response, { resource, version: resource.updatedAt });
}

/** A resource whose answer carries no `updatedAt`, with the version its ETag is made of. */
export interface Versioned<T> {
  resource: T;
  version: Date | string;
}

/** Sets the response's ETag from a version kept beside the resource and returns the resource. */
export function withVersionETag<T>(response: ResponseMeta, { resource, version }: Versioned<T>): T {
  response.headers.etag = etagOf(version);
  return resource;
}
