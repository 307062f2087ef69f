import { arrayLiteral, comments, type Db, memberships, projectKeys, projects, tasks } from '@tasklane/db';
import { type SQL, sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/sql';

/** One hit as the search reads it; the snippet still carries the sentinels of SNIPPET_MARKS. */
export interface SearchRow {
  kind: 'task' | 'comment';
  /** The task's id for a task hit, the comment's for a comment hit: the keyset's tie-breaker. */
  id: string;
  taskId: string;
  commentId: string | null;
  key: string;
  title: string;
  status: string;
  projectId: string;
  snippet: string;
  rank: number;
}

export interface SearchQuery {
  userId: string;
  /** The caller's words, for websearch_to_tsquery. */
  text: string;
  /** Whether the last tsquery term is the last bare word typed, matched as a prefix too. */
  prefix: boolean;
  /** The task key the text is, if it is one. */
  key: { stem: string; number: number } | undefined;
  /** The projects the request's token is limited to, if it is. */
  within: readonly string[] | undefined;
  /** Strictly after this (rank, id), in (rank desc, id) order. */
  after: { rank: number; id: string } | undefined;
  limit: number;
}

/**
 * Private-use characters ts_headline puts around a matched word (`start`, `stop`), and the ones a
 * user's `<` and `>` become before it reads the text (`lt`, `gt`): its parser takes `<b>` for a tag
 * and drops it from the excerpt, and a sentinel is the one marker no escaping can confuse with
 * what a user wrote. Any of them in the text itself is removed first (searchSnippet).
 */
export const SNIPPET_MARKS = { start: '\uE000', stop: '\uE001', lt: '\uE002', gt: '\uE003' } as const;

const { start, stop, lt, gt } = SNIPPET_MARKS;
const HEADLINE_OPTIONS = `StartSel=${start}, StopSel=${stop}, MaxWords=30, MinWords=12, ShortWord=2`;

/** The text of a hit as ts_headline reads it: `<` and `>` as sentinels, and the sentinels themselves dropped (translate drops what has no counterpart). */
const headlineText = (body: SQL) => sql`translate(${body}, ${`<>${start}${stop}${lt}${gt}`}, ${`${lt}${gt}`})`;

/**
 * One page of what the caller may read that matches: tasks (title and description, or their key)
 * and comments, best first. The caller's projects are joined in this same statement, so a member
 * removed a moment ago finds nothing on the next search. A rank is ts_rank normalised into [0, 1)
 * (option 32: rank / (rank + 1)), so the key's task, ranked 1, comes before every word match; a task
 * found both ways appears once, with its best rank. Ranks are float8 end to end, so the cursor's rank
 * compares equal to the row's. Excerpts are made for the page's rows only, ts_headline being the
 * costly part.
 */
export async function searchPage(db: Db, query: SearchQuery): Promise<SearchRow[]> {
  const { userId, text, prefix, key, within, after, limit } = query;
  const words = sql`websearch_to_tsquery('simple', ${text})`;
  // The last bare word as a prefix: its lexeme ends the tsquery's text, so `:*` appended to it
  // matches it as a prefix; guarded for a query of no words, whose text is empty.
  const tsquery = prefix ? sql`(select case when numnode(w) > 0 and right(w::text, 1) = '''' then (w::text || ':*')::tsquery else w end from ${words} as w)` : words;
  const keyHit = key
    ? sql`
      select 'task' as kind, t.id, t.id as task_id, null::uuid as comment_id, 1::float8 as rank
      from ${tasks} as t join mine on mine.project_id = t.project_id
      where t.number = ${key.number} and t.project_id in (select k.project_id from ${projectKeys} as k where k.key = ${key.stem})
      union all`
    : sql``;
  const page = after ? sql`where best.rank < ${after.rank}::float8 or (best.rank = ${after.rank}::float8 and best.id > ${after.id}::uuid)` : sql``;
  return rowsOf<SearchRow>(
    await db.execute(sql`
      with query as (select ${tsquery} as q),
      mine as (
        select m.project_id from ${memberships} as m
        where m.user_id = ${userId}::uuid ${within ? sql`and m.project_id = any(${arrayLiteral(within)}::uuid[])` : sql``}
      ),
      hits as (
        ${keyHit}
        select 'task' as kind, t.id, t.id as task_id, null::uuid as comment_id, ts_rank(t.search_vector, query.q, 32)::float8 as rank
        from ${tasks} as t join mine on mine.project_id = t.project_id cross join query
        where t.search_vector @@ query.q
        union all
        select 'comment', c.id, c.task_id, c.id, ts_rank(c.search_vector, query.q, 32)::float8
        from ${comments} as c join ${tasks} as t on t.id = c.task_id join mine on mine.project_id = t.project_id cross join query
        where c.search_vector @@ query.q
      ),
      best as (select distinct on (id) * from hits order by id, rank desc)
      select best.kind, best.id, best.task_id as "taskId", best.comment_id as "commentId", best.rank,
        p.key || '-' || t.number as key, t.title, t.status, t.project_id as "projectId",
        ts_headline('simple', ${headlineText(sql`coalesce(c.text, t.title || ' ' || t.description)`)}, query.q, ${HEADLINE_OPTIONS}) as snippet
      from best
        join ${tasks} as t on t.id = best.task_id
        join ${projects} as p on p.id = t.project_id
        left join ${comments} as c on c.id = best.comment_id
        cross join query
      ${page}
      order by best.rank desc, best.id
      limit ${limit}`),
  );
}
