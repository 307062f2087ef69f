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
      name: 'domain-free-of-transport',
      severity: 'error',
      comment:
        "Only src/trpc, src/http, the resources' router.ts (and their sse.ts, the event stream routes) and the entry files know tRPC and Fastify; services, stores, the policy and lib/ refuse with DomainError (src/errors.ts).",
      from: {
        path: '^apps/server/src/',
        pathNot: [
          '^apps/server/src/(trpc|http)/',
          '^apps/server/src/[^/]+/router\\.ts$',
          '^apps/server/src/[^/]+/sse\\.ts$',
          '^apps/server/src/(app|main|cli|index|openapi|web-app|metrics)\\.ts$',
          // A test beside its module (policy.test.ts) drives the app through HTTP.
          '\\.test\\.ts$',
        ],
      },
      to: { path: ['^apps/server/src/(trpc|http)/', '(^|/)node_modules/(fastify|@fastify/[^/]+|@trpc/[^/]+|trpc-to-openapi)/'] },
    },
    {
      name: 'store-of-own-resource',
      severity: 'error',
      comment: "A resource reads another's data through access.ts or that resource's service, never its store.",
      from: { path: '^apps/server/src/([^/]+)/' },
      to: { path: '^apps/server/src/[^/]+/store\\.ts$', pathNot: '^apps/server/src/$1/store\\.ts$' },
    },
    {
      name: 'no-store-from-shared-modules',
      severity: 'error',
      comment: 'access.ts, policy.ts, services.ts and the other shared modules reach a resource through its service.',
      from: { path: '^apps/server/src/[^/]+\\.ts$' },
      to: { path: '^apps/server/src/[^/]+/store\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(apps|packages)/[^/]+/dist/' },
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
