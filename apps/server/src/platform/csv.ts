/**
 * CSV as RFC 4180 writes it: CRLF line ends, every field quoted when it holds a comma, a quote or
 * a line break (quotes doubled). A cell that starts with = + - @, a tab or a carriage return is
 * prefixed with ' (OWASP's advice on CSV injection), so a spreadsheet shows it as text and never
 * evaluates it as a formula; a number written by the server (minutes) is never negative, so only
 * text can be so neutralised.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const toCsv = (header: readonly string[], rows: readonly (readonly string[])[]): string =>
  [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';

/** Whether an Accept header asks for CSV before JSON (text/csv listed, and no application/json before it). */
export function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const csv = types.indexOf('text/csv');
  const json = types.indexOf('application/json');
  return csv !== -1 && (json === -1 || csv < json);
}
