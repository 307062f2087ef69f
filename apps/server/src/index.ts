export { buildApp, openDatabase, VERSION } from './app';
export { loadConfig, type Config } from './config';
export type { AppRouter } from './trpc/router';
