import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The ESLint layering rule (eslint.config.js) fires where it should, and only there.
const eslint = new ESLint({ cwd: fileURLToPath(new URL('..', import.meta.url)) });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering', () => {
  const fromPages = "import { LATEST_FALLBACK } from '../pages/Home';\nexport const x = LATEST_FALLBACK;\n";

  const cases: { name: string; filePath: string; code: string; want: number }[] = [
    { name: 'lib importing a page', filePath: 'src/lib/example.ts', code: fromPages, want: 1 },
    { name: 'api importing a page', filePath: 'src/api/example.ts', code: fromPages, want: 1 },
    {
      name: 'api importing a page type',
      filePath: 'src/api/example.ts',
      code: "import type { X } from '../pages/Home';\nexport type Y = X;\n",
      want: 1,
    },
    {
      name: 'lib importing a feature',
      filePath: 'src/lib/example.ts',
      code: "import { SPEND_KEY } from '../features/spend/useSpend';\nexport const x = SPEND_KEY;\n",
      want: 1,
    },
    {
      name: 'api importing a feature',
      filePath: 'src/api/example.ts',
      code: "import { SPEND_KEY } from '../features/spend/useSpend';\nexport const x = SPEND_KEY;\n",
      want: 1,
    },
    { name: 'a component importing a page', filePath: 'src/components/Example.tsx', code: fromPages, want: 0 },
    {
      name: 'api importing lib',
      filePath: 'src/api/example.ts',
      code: "import { parsePlatform } from '../lib/platforms';\nexport const x = parsePlatform;\n",
      want: 0,
    },
  ];
  for (const c of cases) {
    // The first run loads the config and the TypeScript parser: slow on a busy machine.
    it(c.name, { timeout: 60_000 }, async () => {
      expect(await restricted(c.filePath, c.code)).toHaveLength(c.want);
    });
  }
});

async function boundaries(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'local/feature-boundaries').map((m) => m.message);
}

// The feature-boundaries rule (eslint-rules/feature-boundaries.js): another
// feature is imported through its index.ts, never its internals.
describe('feature boundaries', () => {
  const use = (from: string) => `import { x } from '${from}';\nexport const y = x;\n`;
  const cases: { name: string; filePath: string; code: string; want: number }[] = [
    { name: "a feature importing another's hook", filePath: 'src/features/review/Example.tsx', code: use('../spend/useSpend'), want: 1 },
    { name: "a feature importing another's index", filePath: 'src/features/review/Example.tsx', code: use('../spend'), want: 0 },
    { name: "a feature importing another's index by name", filePath: 'src/features/review/Example.tsx', code: use('../spend/index'), want: 0 },
    { name: 'a feature importing its own internals', filePath: 'src/features/review/Example.tsx', code: use('./useQueued'), want: 0 },
    { name: 'a feature importing its own internals the long way', filePath: 'src/features/review/Example.tsx', code: use('../review/useQueued'), want: 0 },
    { name: "a feature's subfolder importing another's internals", filePath: 'src/features/review/parts/Example.tsx', code: use('../../spend/SpendPanel'), want: 1 },
    { name: 'a feature importing lib and components', filePath: 'src/features/review/Example.tsx', code: use('../../lib/platforms') + use('../../components/FigureTable'), want: 0 },
    {
      name: "another feature's stylesheet",
      filePath: 'src/features/insights/Example.tsx',
      code: "import '../spend/spend.css';\nexport const y = 1;\n",
      want: 1,
    },
    { name: "a type from another's internals", filePath: 'src/features/insights/Example.ts', code: "import type { X } from '../review/review';\nexport type Y = X;\n", want: 1 },
    { name: "a re-export of another's internals", filePath: 'src/features/admin/Example.ts', code: "export { SpendBanners } from '../spend/SpendPanel';\n", want: 1 },
    { name: "a lazy import of another's page", filePath: 'src/features/admin/Example.ts', code: "export const P = import('../review/ReviewPage');\n", want: 1 },
    { name: "a page importing a feature's internals", filePath: 'src/pages/Example.tsx', code: use('../features/admin/sections'), want: 1 },
    { name: "a page importing a feature's index", filePath: 'src/pages/Example.tsx', code: use('../features/admin'), want: 0 },
    { name: "App importing a feature's internals", filePath: 'src/App.tsx', code: use('./features/admin/AdminArea'), want: 1 },
    { name: "a component importing a feature's internals", filePath: 'src/components/Example.tsx', code: use('../features/spend/useSpend'), want: 1 },
  ];
  for (const c of cases) {
    it(c.name, { timeout: 60_000 }, async () => {
      expect(await boundaries(c.filePath, c.code)).toHaveLength(c.want);
    });
  }

  it('names the index to import instead', { timeout: 60_000 }, async () => {
    expect(await boundaries('src/features/review/Example.tsx', use('../spend/useSpend'))).toEqual([
      "'../spend/useSpend' reaches into the spend feature: import '../spend' (its index.ts) instead, or move what both need into lib/ or components/.",
    ]);
  });
});
