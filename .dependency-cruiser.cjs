// Import rules checked by `turbo run lint` (the root's lint:deps task): no cycles in any package,
// and the server's layering (docs/architecture.md).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Imports follow the data one way (schema → procedure → service → store); a loop means two modules each need the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      severity: 'error',
      comment: 'Folders import each other one way too: a loop between two folders is a knot no newcomer can read from one end.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    // The server's layers (docs/architecture.md): app → transport → resources → events → platform.
    // Each imports only its own layer and those below it.
    {
      name: 'platform-imports-platform',
      severity: 'error',
      comment: 'src/platform (database helpers, ids, paging, config, errors, mail) knows no resource, event or transport.',
      from: { path: '^apps/server/src/platform/' },
      to: { path: '^apps/server/src/(app|transport|resources|events)/' },
    },
    {
      name: 'events-below-resources',
      severity: 'error',
      comment: 'src/events (the event log and the work derived from it) reads and writes tables, never through a resource.',
      from: { path: '^apps/server/src/events/' },
      to: { path: '^apps/server/src/(app|transport|resources)/' },
    },
    {
      name: 'resources-free-of-transport',
      severity: 'error',
      comment:
        'Services, stores, the policy and the platform refuse with DomainError (src/platform/errors.ts); only src/transport and src/app know tRPC and Fastify (and src/platform/metrics.ts, which serves /metrics).',
      from: { path: '^apps/server/src/(resources|events|platform)/', pathNot: ['^apps/server/src/platform/metrics\\.ts$', '\\.test\\.ts$'] },
      to: { path: ['^apps/server/src/(app|transport)/', '(^|/)node_modules/(fastify|@fastify/[^/]+|@trpc/[^/]+|trpc-to-openapi)/'] },
    },
    {
      name: 'transport-below-app',
      severity: 'error',
      comment: 'src/app starts the server and wires the layers; nothing below it imports it.',
      from: { path: '^apps/server/src/(transport|resources|events|platform)/' },
      to: { path: '^apps/server/src/app/' },
    },
    {
      name: 'store-of-own-resource',
      severity: 'error',
      comment: "A resource reads another's data through access.ts or that resource's service, never its store.",
      from: { path: '^apps/server/src/resources/([^/]+)/' },
      to: { path: '^apps/server/src/resources/[^/]+/store\\.ts$', pathNot: '^apps/server/src/resources/$1/store\\.ts$' },
    },
    {
      name: 'no-store-from-outside-resources',
      severity: 'error',
      comment: 'access.ts, policy.ts, services.ts, the routers and the app reach a resource through its service.',
      from: { path: '^apps/server/src/', pathNot: '^apps/server/src/resources/[^/]+/' },
      to: { path: '^apps/server/src/resources/[^/]+/store\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Build outputs, and the temporary file tsup writes beside its config while a build runs (turbo
    // runs builds beside this check: cruising a file that vanishes midway fails the check).
    exclude: { path: ['^(apps|packages)/[^/]+/dist/', '\\.bundled_[^/]*\\.mjs$'] },
    // Type-only imports count: a loop of types is still two modules that each need the other.
    tsPreCompilationDeps: true,
    // Workspace packages resolve through their `exports` to their TypeScript sources, as in the build.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
