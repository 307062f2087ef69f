import { formatError } from '../plan';

/** The file's bytes as JSON, or the 400 a broken file gets (never a 500). */
export function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    throw formatError(`The file is not valid JSON, as ${what} is: ${(error as Error).message}`);
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
export const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
