import { arrayLiteral, comments, type Db, memberships, projectKeys, projects, projectTaskCounts, tasks } from '@tasklane/db';
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
  /** The words as a tsquery's text (searchTerms). */
  tsquery: string;
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

/** The reader's projects (those the token reaches, if it is limited). */
const readerProjects = (userId: string, within: readonly string[] | undefined) =>
  sql`select m.project_id from ${memberships} as m
    where m.user_id = ${userId}::uuid ${within ? sql`and m.project_id = any(${arrayLiteral(within)}::uuid[])` : sql``}`;

/** The words, and what decides the way to read each table for them (searchWays). */
export interface SearchTerms {
  /** The words as one tsquery's text. */
  tsquery: string;
  /** The tasks of the reader's projects (their counts, kept by the trigger of migration 0004). */
  visibleTasks: number;
  /** PostgreSQL's count of each table's rows as of its last ANALYZE (pg_class.reltuples; -1 before the first). */
  allTasks: number;
  allComments: number;
}

/**
 * The words as one tsquery's text (websearch syntax; the last bare word also as a prefix when
 * `prefix`), how many tasks the reader's projects hold, and how many rows each table holds.
 */
export async function searchTerms(db: Db, input: { userId: string; text: string; prefix: boolean; within: readonly string[] | undefined }): Promise<SearchTerms> {
  // The last bare word as a prefix: its lexeme ends the tsquery's text, so `:*` appended to it
  // matches it as a prefix; guarded for a query of no words, whose text is empty.
  const tsquery = input.prefix ? sql`case when numnode(w) > 0 and right(w::text, 1) = '''' then (w::text || ':*')::tsquery else w end` : sql`w`;
  const [row] = rowsOf<Record<keyof SearchTerms, number | string>>(
    await db.execute(sql`
      select (${tsquery})::text as tsquery,
        (select coalesce(sum(c.count), 0) from ${projectTaskCounts} as c where c.project_id in (${readerProjects(input.userId, input.within)})) as "visibleTasks",
        (select reltuples from pg_class where oid = to_regclass('tasks')) as "allTasks",
        (select reltuples from pg_class where oid = to_regclass('comments')) as "allComments"
      from websearch_to_tsquery('simple', ${input.text}) as w`),
  );
  return { tsquery: String(row!.tsquery), visibleTasks: Number(row!.visibleTasks), allTasks: Number(row!.allTasks ?? -1), allComments: Number(row!.allComments ?? -1) };
}

/** Which way the page reaches each table (searchPage). */
export interface SearchWays {
  tasksByProject: boolean;
  commentsByProject: boolean;
}

/**
 * Reading a word's GIN entries costs in proportion to the rows it matches in the whole table; going
 * through the reader's projects, in proportion to the rows they hold, each read and tested. A row so
 * tested costs about as much as six GIN entries (measured on the bench's million tasks,
 * docs/performance.md, Search).
 */
const ROW_PER_GIN_ENTRIES = 6;

/** PostgreSQL's estimate of the rows an EXPLAIN (FORMAT JSON) plan returns: its top node's, whatever the node (0 if the plan is not as documented). */
function estimatedRows(result: unknown): number {
  const plan = rowsOf<Record<string, unknown>>(result)[0]?.['QUERY PLAN'];
  const nodes = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan?: { 'Plan Rows'?: unknown } }[] | undefined;
  const rows = Array.isArray(nodes) ? nodes[0]?.Plan?.['Plan Rows'] : undefined;
  return typeof rows === 'number' && Number.isFinite(rows) ? rows : 0;
}

/**
 * The way to each table that reads less for these words: PostgreSQL's own estimate of the rows the
 * tsquery matches in it (EXPLAIN, planned for this tsquery: the statistics of the words), against
 * the rows the reader can see, taken to be the same share of the comments as of the tasks. A word in
 * most tasks (or a prefix of many words) goes through the projects; a rarer one through its entries.
 * Without statistics yet (a table never analyzed), or an estimate not understood, the entries: a
 * small database's way. A plan prepared for any words cannot tell the two apart.
 */
export async function searchWays(db: Db, terms: SearchTerms): Promise<SearchWays> {
  const { tsquery, visibleTasks, allTasks, allComments } = terms;
  if (allTasks <= 0) return { tasksByProject: false, commentsByProject: false };
  const [matchedTasks, matchedComments] = await Promise.all([
    db.execute(sql`explain (format json) select 1 from ${tasks} where search_vector @@ ${tsquery}::tsquery`).then(estimatedRows),
    db.execute(sql`explain (format json) select 1 from ${comments} where search_vector @@ ${tsquery}::tsquery`).then(estimatedRows),
  ]);
  const visibleShare = Math.min(1, visibleTasks / allTasks);
  return {
    tasksByProject: matchedTasks > ROW_PER_GIN_ENTRIES * visibleShare * allTasks,
    commentsByProject: allComments > 0 && matchedComments > ROW_PER_GIN_ENTRIES * visibleShare * allComments,
  };
}

/**
 * One page of what the caller may read that matches: tasks (title and description, or their key)
 * and comments, best first. The caller's projects are joined in this same statement, so a member
 * removed a moment ago finds nothing on the next search. A rank is ts_rank normalised into [0, 1)
 * (option 32: rank / (rank + 1)), so the key's task, ranked 1, comes before every word match; a task
 * found both ways appears once, with its best rank. Ranks are float8 end to end, so the cursor's rank
 * compares equal to the row's. The page's rows are chosen before anything is joined to them, and
 * excerpts are made for those only, ts_headline being the costly part.
 *
 * Each table is reached the way `ways` says (searchWays): by its words' GIN entries ANDed with the
 * reader's projects' entries, or through the projects alone with the words tested on each row
 * (`is true` keeps the GIN index out of that plan). Either way finds the same rows. The words reach
 * the plan as a subquery, so each way is one plan for any words, prepared once.
 */
export async function searchPage(db: Db, query: SearchQuery, ways: SearchWays): Promise<SearchRow[]> {
  const { userId, tsquery, key, within, after, limit } = query;
  const keyHit = key
    ? sql`
      select 'task' as kind, t.id, t.id as task_id, null::uuid as comment_id, 1::float8 as rank
      from ${tasks} as t join mine on mine.project_id = t.project_id
      where t.number = ${key.number} and t.project_id in (select k.project_id from ${projectKeys} as k where k.key = ${key.stem})
      union all`
    : sql``;
  const matches = (vector: SQL, byProject: boolean) => (byProject ? sql`(${vector} @@ (select q from query)) is true` : sql`${vector} @@ (select q from query)`);
  const page = after ? sql`where best.rank < ${after.rank}::float8 or (best.rank = ${after.rank}::float8 and best.id > ${after.id}::uuid)` : sql``;
  return rowsOf<SearchRow>(
    await db.execute(sql`
      with query as (select ${tsquery}::tsquery as q),
      mine as (${readerProjects(userId, within)}),
      hits as (
        ${keyHit}
        select 'task' as kind, t.id, t.id as task_id, null::uuid as comment_id, ts_rank(t.search_vector, (select q from query), 32)::float8 as rank
        from ${tasks} as t
        where t.project_id = any(array(select project_id from mine)) and ${matches(sql`t.search_vector`, ways.tasksByProject)}
        union all
        select 'comment', c.id, c.task_id, c.id, ts_rank(c.search_vector, (select q from query), 32)::float8
        from ${comments} as c
        where c.project_id = any(array(select project_id from mine)) and ${matches(sql`c.search_vector`, ways.commentsByProject)}
      ),
      best as (select distinct on (id) * from hits order by id, rank desc),
      top as (select * from best ${page} order by rank desc, id limit ${limit})
      select top.kind, top.id, top.task_id as "taskId", top.comment_id as "commentId", top.rank,
        p.key || '-' || t.number as key, t.title, t.status, t.project_id as "projectId",
        ts_headline('simple', ${headlineText(sql`coalesce(c.text, t.title || ' ' || t.description)`)}, (select q from query), ${HEADLINE_OPTIONS}) as snippet
      from top
        join ${tasks} as t on t.id = top.task_id
        join ${projects} as p on p.id = t.project_id
        left join ${comments} as c on c.id = top.comment_id
      order by top.rank desc, top.id`),
  );
}

