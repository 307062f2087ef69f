import { type SQL, type SQLWrapper, and, eq, sql } from 'drizzle-orm';
import { projectStates, type STATE_CATEGORY_VALUES } from './schema';

export type StateCategoryValue = (typeof STATE_CATEGORY_VALUES)[number];

/**
 * An SQL condition: the task whose project and status are given (columns of `tasks` or of an alias
 * of it, or raw SQL such as `sql\`t.status\``) is in a state of one of `categories`. The one place
 * that turns a task's status into its category in SQL, for every store that asks "is this task
 * done?" (completed), "closed?" (completed or cancelled) and so on: it lives here, beside the
 * table, because any resource's store may need it and no store may import another's. Served by
 * project_states_project_key_key.
 */
export const stateCategoryIn = (task: { projectId: SQLWrapper; status: SQLWrapper }, categories: readonly StateCategoryValue[]): SQL =>
  categories.length === 0
    ? sql`false`
    : sql`exists (select 1 from ${projectStates} where ${and(
    eq(projectStates.projectId, task.projectId),
    eq(projectStates.key, task.status),
    sql`${projectStates.category} in (${sql.join(
      categories.map((category) => sql.raw(`'${category}'`)),
      sql`, `,
    )})`,
  )})`;
