import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  clean: true,
  // Runtime code comes only from @trpc/client; the server is imported for its router type alone.
  external: ['@trpc/client', '@trpc/server'],
  dts: {
    compilerOptions: {
      ignoreDeprecations: '6.0',
      paths: {
        '@tasklane/server/router': ['../../apps/server/src/trpc/router.ts'],
        '@tasklane/schemas': ['../schemas/src/index.ts'],
      },
    },
  },
});
