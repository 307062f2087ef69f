export * from './client';
export * as schema from './schema';
export * from './schema';
export { dateFromTimestamptz, isoFromTimestamptz } from './timestamps';
export { uuidsFromArrayText } from './uuid-arrays';
