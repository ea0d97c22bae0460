import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { featureBoundaries } from './eslint-rules/feature-boundaries.js';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'screenshots/', 'test-results/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
  },
  {
    // A feature is imported through its index.ts only (src/features/<name>/index.ts).
    files: ['src/**/*.{ts,tsx}'],
    plugins: { local: { rules: { 'feature-boundaries': featureBoundaries } } },
    rules: { 'local/feature-boundaries': 'error' },
  },
  {
    // Layering: pages and features use lib/ and api/, never the other way round.
    files: ['src/lib/**/*.{ts,tsx}', 'src/api/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)pages(/|$)',
              message: 'lib/ and api/ must not import from pages/: move what both need into lib/ (or api/).',
            },
            {
              regex: '(^|/)features(/|$)',
              message: 'lib/ and api/ must not import from features/: move what both need into lib/ (or api/).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['e2e/**/*.mjs', 'scripts/**/*.mjs', 'eslint-rules/**/*.js', '*.config.{js,ts}'],
    languageOptions: { globals: globals.node },
  },
  {
    // Browser tests hand functions to page.evaluate, which run in the page.
    files: ['e2e/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
