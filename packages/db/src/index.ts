export * from './client';
export * as schema from './schema';
export * from './schema';
/** @deprecated Kept for resources/tasks/store.ts until its rewrite lands (see the files). */
export { isoFromTimestamptz } from './timestamps';
/** @deprecated As above, and arrayLiteral for events/notification-write.ts and platform/prepared.ts. */
export { arrayLiteral, uuidsFromArrayText } from './arrays';
