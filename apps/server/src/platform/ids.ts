import { uuidv7 } from 'uuidv7';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => uuidv7();

/** A malformed id can name nothing, so callers answer 404 without asking the database. */
export const isId = (value: string): boolean => UUID.test(value);
