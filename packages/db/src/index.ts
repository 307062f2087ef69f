export * from './client';
export * as schema from './schema';
export * from './schema';
export { dateFromTimestamptz, isoFromTimestamptz } from './timestamps';
export { arrayLiteral, uuidsFromArrayText } from './arrays';
