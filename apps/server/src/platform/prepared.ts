import { arrayLiteral, type Db } from '@tasklane/db';
import { getTableColumns, type Placeholder, type Query, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { PgDialect, type PgPreparedQuery, type PgTable, type PreparedQueryConfig } from 'drizzle-orm/pg-core';
import { currentHandle } from './ambient-transaction';
import { rowsOf } from './sql';

/**
 * A statement built once per database handle instead of once per request: drizzle's query building
 * is a measurable part of a single-row read. Transactions are handles of their own, so a statement
 * used inside one is built for it (and forgotten with it).
 */
export function preparedFor<Statement>(build: (db: Db) => Statement): (db: Db) => Statement {
  const statements = new WeakMap<Db, Statement>();
  return (handle) => {
    // A transaction-aware handle stands for the pool or the open transaction: cache per real handle.
    const db = currentHandle(handle);
    let statement = statements.get(db);
    if (!statement) {
      statement = build(db);
      statements.set(db, statement);
    }
    return statement;
  };
}

/**
 * One shape of a statement: `build` writes it with `sql.placeholder(name)` for every value that
 * varies, and the same `key` always builds the same text; `values` fills the placeholders. Only
 * the first build of a key is ever run, so a value written into `build` directly (not as a
 * placeholder) would be frozen for every later use: only constants may be.
 */
export interface StatementPart {
  key: string;
  build: (db: Db) => SQLWrapper;
  values: Record<string, unknown>;
}

const dialect = new PgDialect();
const MAX_SHAPES = 1_000;

interface Shape {
  query: Query;
  prepared: (db: Db) => PgPreparedQuery<PreparedQueryConfig>;
  /** The same statement, answering each row as an array of its values (runStatementAs). */
  preparedValues: (db: Db) => PgPreparedQuery<PreparedQueryConfig>;
}

const shapes = new Map<string, Shape>();

/**
 * Runs a statement given as a shape and its values: rendered to SQL text the first time its key is
 * seen, prepared once per database handle, and from then on only bound and run. Rendering through
 * drizzle on every request cost a write about a fifth of the server's time, and a page of tasks a
 * tenth (CHANGELOG.md, 0.1.0). Returns the raw rows (column names as the statement selects them).
 */
export async function runStatement<Row>(db: Db, statement: StatementPart): Promise<Row[]> {
  return rowsOf<Row>(await shapeOf(db, statement).prepared(db).execute(statement.values));
}

/**
 * runStatement, with each row read as the array of its values and built by `fromValues`. A row
 * object the driver builds gets its columns one keyed store at a time, a site every statement
 * shares, and ends up with most of its fields outside the object; an object literal per row is
 * built in one step and serialised faster: 5–7 µs of a page of 50 tasks, building and
 * JSON.stringify together, in a microbenchmark.
 */
export async function runStatementAs<Row>(db: Db, statement: StatementPart, fromValues: (values: unknown[]) => Row): Promise<Row[]> {
  const rows = (await shapeOf(db, statement).preparedValues(db).execute(statement.values)) as unknown[][];
  const built = new Array<Row>(rows.length);
  for (let i = 0; i < rows.length; i++) built[i] = fromValues(rows[i] as unknown[]);
  return built;
}

function shapeOf(db: Db, statement: StatementPart): Shape {
  let shape = shapes.get(statement.key);
  if (!shape) {
    const query = dialect.sqlToQuery(statement.build(db).getSQL());
    shape = {
      query,
      prepared: preparedFor((handle) => handle._.session.prepareQuery(query, undefined, 'shape', false)),
      preparedValues: preparedFor((handle) => handle._.session.prepareQuery(query, undefined, 'shape', true, (rows) => rows)),
    };
    // Keys come from code paths and bounded list shapes, not from values; the bound only guards that.
    if (shapes.size < MAX_SHAPES) shapes.set(statement.key, shape);
  }
  return shape;
}

/** `sql.placeholder(prefix + name)`: the placeholders of one part of a statement, kept apart from the others' by the prefix. */
export const placeholderIn =
  (prefix: string) =>
  (name: string): Placeholder =>
    sql.placeholder(`${prefix}${name}`);

/** `sql.placeholder(prefix + column)` for each column: the values of an INSERT or SET built once. */
export function placeholdersFor<Column extends string>(columns: readonly Column[], prefix: string): Record<Column, SQL> {
  // As SQL rather than bare placeholders, which drizzle's UPDATE … SET does not take.
  return Object.fromEntries(columns.map((column) => [column, sql`${sql.placeholder(`${prefix}${column}`)}`])) as Record<Column, SQL>;
}

/**
 * The values for placeholdersFor(columns of `row`, prefix), or for placeholderIn(prefix). A value
 * reaches the driver as it is, not through a column's mapping (placeholdersFor wraps each in SQL,
 * which drizzle does not map, and a bare one would be mapped as if it were a Date already), so
 * dates go as the ISO text the database parses.
 */
export function valuesFor(row: object, prefix: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    values[`${prefix}${column}`] = value instanceof Date ? value.toISOString() : Array.isArray(value) ? arrayLiteral(value) : value;
  }
  return values;
}

/**
 * `insert into table (every column) select (each column's placeholder, cast to its type)`, for an
 * INSERT … SELECT guarded by a WHERE (which the caller adds): unlike VALUES, a SELECT does not give
 * the values their columns' types. The placeholders are placeholderIn(prefix)(column key).
 */
export function insertSelect(table: PgTable, prefix: string): SQL {
  const columns = Object.entries(getTableColumns(table));
  const value = placeholderIn(prefix);
  return sql`insert into ${table} (${sql.join(columns.map(([, column]) => sql.identifier(column.name)), sql`, `)})
    select ${sql.join(columns.map(([key, column]) => sql`${value(key)}::${sql.raw(column.getSQLType())}`), sql`, `)}`;
}
