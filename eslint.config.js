import js from '@eslint/js';
import i18next from 'eslint-plugin-i18next';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/drizzle/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', TextEncoder: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['bench/**/*.mjs'],
    languageOptions: { globals: { fetch: 'readonly' } },
  },
  {
    // Every text of the web app is in its catalogues (issue 39): a literal in JSX, or in an attribute a
    // person reads or hears, fails the lint. The product's name and a key's name are the same in every language.
    files: ['apps/web/src/**/*.tsx'],
    plugins: { i18next },
    rules: {
      'i18next/no-literal-string': [
        'error',
        {
          mode: 'jsx-only',
          'jsx-attributes': { include: ['^(aria-label|aria-description|aria-roledescription|aria-valuetext|title|placeholder|alt|label|what|notice|heading)$'] },
          // Strings with no letter (separators, dashes, icons, counts) say nothing to translate.
          words: { exclude: [/^[^\p{L}]*$/u, /^Tasklane$/, /^Ctrl K$/] },
        },
      ],
    },
  },
  {
    // The browser loads no Zod: the app takes the schemas' types from '@tasklane/schemas' and their
    // plain values from '@tasklane/schemas/constants' (a value from the first would bring Zod and build
    // every schema on the board's first load).
    files: ['apps/web/src/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: '@tasklane/schemas', message: "Import values from '@tasklane/schemas/constants'.", allowTypeImports: true }] },
      ],
    },
  },
  {
    // Tests read JSON bodies of many shapes; `any` there keeps assertions readable.
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
