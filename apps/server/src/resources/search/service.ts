import type { Db } from '@tasklane/db';
import type { SearchHit, SearchInput } from '@tasklane/schemas';
import { escapeHtml } from '../../platform/mail/html';
import { type CursorCheck, cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { currentGrant, grantedProjects } from '../policy/policy';
import { parseTaskKey } from '../tasks/service';
import * as store from './store';

const { start, stop, lt, gt } = store.SNIPPET_MARKS;

/** A rank as the search gives it: ts_rank normalised into [0, 1), or 1 for a task key. */
const isRank: CursorCheck = (value) => typeof value === 'number' && value >= 0 && value <= 1;

/**
 * Whether the last word typed is a bare word (not in a phrase, not excluded with `-`, not the `or`
 * operator), which the search then also matches as a prefix: what is being typed is found as it grows.
 * Quotes are counted because websearch_to_tsquery reads an unclosed one as a phrase to the end.
 */
export function endsWithBareWord(text: string): boolean {
  const last = text.split(/\s+/).at(-1) ?? '';
  const quotes = text.split('"').length - 1;
  return quotes % 2 === 0 && /^[\p{L}\p{N}]+$/u.test(last) && last.toLowerCase() !== 'or';
}

/** The excerpt as HTML: everything the user wrote escaped, then the sentinels of matches made `<mark>`. */
const snippetHtml = (raw: string): string =>
  escapeHtml(raw.replaceAll(lt, '<').replaceAll(gt, '>'))
    .replaceAll(start, '<mark>')
    .replaceAll(stop, '</mark>');

const toHit = (row: store.SearchRow): SearchHit => ({
  kind: row.kind,
  task: { id: row.taskId, key: row.key, title: row.title, status: row.status, projectId: row.projectId },
  commentId: row.commentId,
  snippet: snippetHtml(row.snippet),
  rank: row.rank,
});

export function createSearchService(db: Db) {
  return {
    /**
     * Tasks and comments of the caller's projects (those its token reaches) matching `q`, best
     * first, paged by (rank, id). Membership is part of the page's query, not checked before it; the
     * two statements before it only settle the words and the way to read them (searchWays).
     */
    async query(userId: string, { q, ...paging }: SearchInput): Promise<Page<SearchHit>> {
      const limit = pageSize(paging.limit);
      const [rank, id] = decodeCursor(paging.cursor, [isRank, cursorChecks.id]) ?? [];
      const within = grantedProjects(currentGrant());
      const terms = await store.searchTerms(db, { userId, text: q, prefix: endsWithBareWord(q), within });
      const ways = await store.searchWays(db, terms);
      const rows = await store.searchPage(
        db,
        {
          userId,
          tsquery: terms.tsquery,
          key: parseTaskKey(q),
          within,
          after: typeof rank === 'number' && typeof id === 'string' ? { rank, id } : undefined,
          limit: limit + 1,
        },
        ways,
      );
      return toPage(rows, limit, toHit, (row) => [row.rank, row.id]);
    },
  };
}
