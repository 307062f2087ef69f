export { buildApp, openDatabase, VERSION } from './app';
export { loadConfig, type Config } from '../platform/config';
export type { AppRouter } from '../transport/trpc/router';
