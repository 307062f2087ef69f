import { defineConfig } from 'vitest/config';
import base from './vite.config';

/** `npm run lighthouse`: Lighthouse on the board, on demand (not part of `vitest run`). */
export default defineConfig({ ...base, test: { ...base.test, include: ['lighthouse/**/*.test.ts'], testTimeout: 300_000 } });
