import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/app/main.ts', 'password-worker': 'src/resources/auth/password-worker.mjs', 'build-template': 'src/app/build-template.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outExtension: () => ({ js: '.mjs' }),
  // The workspace packages are TypeScript sources: bundle them; everything else stays in node_modules.
  noExternal: [/^@tasklane\//],
  clean: true,
  sourcemap: true,
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
