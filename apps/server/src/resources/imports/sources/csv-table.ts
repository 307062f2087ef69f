import { finished } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { formatError } from '../plan';

/** A CSV file's header and rows, with the columns found by name (a name may repeat, as Jira's Comment and Labels do). */
export interface CsvTable {
  header: string[];
  rows: string[][];
  /** The indexes of the columns named `name` (case and spaces ignored). */
  columns(name: string): number[];
  /** The first non-empty cell of the columns named `name`. */
  cell(row: string[], name: string): string;
  /** Every non-empty cell of the columns named `name`. */
  cells(row: string[], name: string): string[];
}

const normal = (name: string) => name.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * RFC 4180 CSV (any line ends, a BOM, quoted cells over lines), or a 400 naming where it breaks.
 * Parsed as the file streams: the rows are kept (a source reads them more than once), the file's
 * bytes are not.
 */
export async function readCsv(file: NodeJS.ReadableStream, what: string): Promise<CsvTable> {
  const records: string[][] = [];
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true });
  // The stored file failing to be read (or closing before its end) ends the parse with that error.
  finished(file, (error) => {
    if (error) parser.destroy(error);
  });
  try {
    for await (const record of file.pipe(parser)) records.push(record as string[]);
  } catch (error) {
    // The file's own fault; a failed read of the stored file is the server's (retried).
    if (!(error instanceof CsvError)) throw error;
    throw formatError(`The file is not a CSV file, as ${what} is: ${(error as Error).message}`);
  }
  const [header, ...rows] = records;
  if (!header || header.length === 0) throw formatError(`The file is empty: ${what} starts with a header row`);
  const index = new Map<string, number[]>();
  header.forEach((name, i) => index.set(normal(name), [...(index.get(normal(name)) ?? []), i]));
  const columns = (name: string) => index.get(normal(name)) ?? [];
  const cells = (row: string[], name: string) => columns(name).map((i) => (row[i] ?? '').trim()).filter((cell) => cell !== '');
  return { header, rows, columns, cells, cell: (row, name) => cells(row, name)[0] ?? '' };
}

/** Refuses a table that lacks one of `required` columns, naming them. */
export function requireColumns(table: CsvTable, required: string[], what: string): void {
  const missing = required.filter((name) => table.columns(name).length === 0);
  if (missing.length > 0) throw formatError(`The file is not ${what}: it has no ${missing.map((name) => `"${name}"`).join(', ')} column`);
}
