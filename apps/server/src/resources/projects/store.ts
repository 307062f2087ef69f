import { type Db, memberships, projectKeys, projects, projectStates, projectStorage, projectTaskCounts } from '@tasklane/db';
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { callerRoleIn } from '../policy/access';
import { PROJECT_KEY_LOCK_CLASS } from '../../platform/locks';
import { rowsOf } from '../../platform/sql';

export type ProjectRow = typeof projects.$inferSelect;

/**
 * A project with the caller's role, its task counts and estimate totals per state key (every
 * state, in board order) and its storage bytes, in one query; undefined for non-members and
 * unknown projects alike. Every total is kept by the database as the writes change it (migrations
 * 0004 and 0018), so the read is a few index probes however large the project.
 */
export async function findProjectForMember(db: Db, projectId: string, userId: string) {
  const [found] = await db
    .select({
      project: projects,
      role: callerRoleIn(sql.raw('"projects"."id"'), userId),
      // One entry per state of the project, 0 for a state no task has been in; the count and the
      // estimate total of a state from the same row of project_task_counts.
      totals: sql<{ counts: Record<string, number>; estimates: Record<string, number | string> }>`(
        select json_build_object(
          'counts', coalesce(json_object_agg(s.key, coalesce(c.count, 0) order by s.position), '{}'::json),
          'estimates', coalesce(json_object_agg(s.key, coalesce(c.estimate, 0) order by s.position), '{}'::json)
        )
        from ${projectStates} as s left join ${projectTaskCounts} as c on c.project_id = s.project_id and c.status = s.key
        where s.project_id = "projects"."id"
      )`,
      // The bytes stored for the project, each distinct file once (project_storage, migration 0018).
      storageBytes: sql<number>`coalesce((select ${projectStorage.bytes} from ${projectStorage} where ${projectStorage.projectId} = "projects"."id"), 0)::float8`.mapWith(Number),
    })
    .from(projects)
    .where(eq(projects.id, projectId))
    .limit(1);
  if (!found?.role) return undefined;
  // json_object_agg writes a numeric as a JSON number; Number() also covers a driver giving text.
  const estimateTotals = Object.fromEntries(Object.entries(found.totals.estimates).map(([key, total]) => [key, Number(total)]));
  return { project: found.project, role: found.role, taskCounts: found.totals.counts, storageBytes: found.storageBytes, estimateTotals };
}

/**
 * With `lock`, the row stays locked to the end of the caller's transaction: `no key update` for a
 * change of its fields, which leaves the writes inside the project (FOR KEY SHARE) free to go on;
 * `update` for its deletion.
 */
export const findProject = async (db: Db, id: string, options: { lock?: 'update' | 'no key update' } = {}) => {
  const query = db.select().from(projects).where(eq(projects.id, id)).limit(1);
  return (await (options.lock ? query.for(options.lock) : query))[0];
};

/** The projects a user is a member of (of `within` only, when given), in id (creation) order, after `afterId`. */
export const listProjectsOfMember = (db: Db, userId: string, afterId: string | undefined, limit: number, within?: readonly string[]) =>
  db
    .select({ project: projects, role: memberships.role })
    .from(memberships)
    .innerJoin(projects, eq(projects.id, memberships.projectId))
    .where(
      and(
        eq(memberships.userId, userId),
        afterId ? gt(memberships.projectId, afterId) : undefined,
        within ? inArray(memberships.projectId, [...within]) : undefined,
      ),
    )
    .orderBy(asc(memberships.projectId))
    .limit(limit);

export const insertProject = async (db: Db, project: typeof projects.$inferInsert) =>
  (await db.insert(projects).values(project).returning())[0]!;

/** `updatedAt` comes from the caller, who read the row under its lock (see lib/versions.ts). */
export const updateProject = async (db: Db, id: string, patch: { name?: string; description?: string; key?: string; ownerId?: string; estimateUnit?: 'points' | 'hours'; updatedAt: Date }) =>
  (await db.update(projects).set(patch).where(eq(projects.id, id)).returning())[0];

/** Tasks, comments and memberships go with it through ON DELETE CASCADE; its webhooks are orphaned (see schema). */
export const deleteProject = (db: Db, id: string) => db.delete(projects).where(eq(projects.id, id));

/** Held to the end of the caller's transaction: the key claims below, one at a time server-wide (platform/locks.ts). */
export const lockProjectKeys = (db: Db) => db.execute(sql`select pg_advisory_xact_lock(${PROJECT_KEY_LOCK_CLASS}, 0)`);

/** The project that has or had `key` (project_keys keeps every key a project had), if any. */
export const findKeyOwner = async (db: Db, key: string): Promise<string | undefined> =>
  (await db.select({ projectId: projectKeys.projectId }).from(projectKeys).where(eq(projectKeys.key, key)).limit(1))[0]?.projectId;

/**
 * The first free key derived from a project's name, by the database functions migration 0011 made
 * for its existing projects, so a new project's key follows the same rule. Under lockProjectKeys.
 */
export const freeDerivedKey = async (db: Db, name: string): Promise<string> =>
  rowsOf<{ key: string }>(await db.execute(sql`select tasklane_free_project_key(tasklane_project_key_stem(${name})) as key`))[0]!.key;

/** `key` becomes the project's for good (its current key, and later a former one). */
export const claimKey = (db: Db, projectId: string, key: string) => db.insert(projectKeys).values({ key, projectId }).onConflictDoNothing();
