import type { Db } from '@tasklane/db';
import { Column, fillPlaceholders, is, SQL, type SQLChunk, sql } from 'drizzle-orm';

/** Result rows of a raw statement (`db.execute`): postgres.js returns an array, PGlite `{ rows }`. */
export const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows);

/** A row as the driver gives it to `db.execute`: its values keyed by column name or alias. */
export type RawRow = Record<string, unknown>;

/**
 * A statement built by drizzle once (`query`, its varying values as `sql.placeholder`s) and run on
 * any handle, the pool or a transaction, through the public `db.execute` with the placeholders'
 * values. A statement drizzle prepares belongs to the handle it was built on, and a transaction's
 * handle is new each time, so a write built its statements afresh every time (building a task's
 * select was a tenth of a write's server CPU); the text built here is every handle's. The rows are
 * the driver's (RawRow), for a decoder built once (rowDecoder) rather than drizzle's mapping, which
 * looks up each selected field's kind on every row.
 */
export function builtOnce(query: { toSQL(): { sql: string; params: unknown[] } }): (db: Db, values?: Record<string, unknown>) => Promise<RawRow[]> {
  const { sql: text, params } = query.toSQL();
  // drizzle writes its parameters as $1 … $n, each once, in order; no statement of ours has a `$` of its own.
  const pieces = text.split(/\$\d+/);
  if (pieces.length !== params.length + 1) throw new Error(`A statement's text does not match its ${params.length} parameters`);
  const raw = pieces.map((piece) => sql.raw(piece));
  return async (db, values = {}) => {
    const chunks: SQLChunk[] = [raw[0]!];
    fillPlaceholders(params, values).forEach((value, index) => chunks.push(sql.param(value), raw[index + 1]!));
    return rowsOf<RawRow>(await db.execute(sql.join(chunks)));
  };
}

/** What a selection is built from: columns, and SQL expressions (each selected under its key: aliased). */
export type Selection = Record<string, Column | SQL | SQL.Aliased>;

/** `selection` with each SQL expression aliased by its key, so a raw row names it (builtOnce). */
export const aliased = <S extends Selection>(selection: S): S =>
  Object.fromEntries(Object.entries(selection).map(([key, field]) => [key, is(field, SQL) ? field.as(key) : field])) as S;

/**
 * A decoder of raw rows of `selection` (selected through `aliased`): each column's value as its
 * column decodes it (drizzle's public mapFromDriverValue), each expression's as given, or by
 * `decoders`. Which is which is settled here, once, not on every row.
 */
export function rowDecoder<Row>(selection: Selection, decoders: Partial<Record<string, (value: unknown) => unknown>> = {}): (raw: RawRow) => Row {
  const fields = Object.entries(selection).map(([key, field]): [string, string, ((value: unknown) => unknown) | undefined] => {
    if (is(field, Column)) return [key, field.name, (value) => field.mapFromDriverValue(value)];
    return [key, is(field, SQL.Aliased) ? field.fieldAlias : key, decoders[key]];
  });
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const [key, name, decode] of fields) {
      const value = raw[name];
      if (value === undefined) throw new Error(`The statement selected no column "${name}"`);
      row[key] = value === null || !decode ? value : decode(value);
    }
    return row as Row;
  };
}
