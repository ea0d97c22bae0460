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
