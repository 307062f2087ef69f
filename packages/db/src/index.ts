export * from './client';
export * as schema from './schema';
export * from './schema';
export { arrayLiteral } from './arrays';
export { stateCategoryIn, type StateCategoryValue } from './states';
