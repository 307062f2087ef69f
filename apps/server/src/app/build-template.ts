/**
 * Run by the build after tsup (`node dist/build-template.mjs`): writes `dist/pglite-template.tar.gz`,
 * a migrated embedded database that a first start copies instead of running initdb and every
 * migration (docs/performance.md, "Start and idle memory"). It is made by the same PGlite and
 * migrations as the server beside it, so it always matches them.
 */
import { buildPgliteTemplate } from '@tasklane/db';
import { PGLITE_TEMPLATE } from './data-dir';

await buildPgliteTemplate(PGLITE_TEMPLATE);
