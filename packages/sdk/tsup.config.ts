import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  clean: true,
  // Runtime dependencies are bundled, so installing the SDK installs nothing else (no TypeScript as a
  // peer of @trpc/client); the declarations are the generated standalone types.
  noExternal: ['@trpc/client', '@trpc/server', 'eventsource-parser'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
});
