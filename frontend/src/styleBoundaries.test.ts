import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// A feature's components use the CSS classes of its own stylesheets or the
// shared ones (src/*.css, components/, pages/), never a class only another
// feature's stylesheet defines: that one is loaded with the other feature's
// chunk, so the style would depend on which section the admin opened first.
const SRC = new URL('.', import.meta.url);
const FILES = (readdirSync(SRC, { recursive: true }) as string[]).map((p) => p.split('\\').join('/')).sort();

/** The feature a path under features/ belongs to; null for shared code. */
function featureOf(path: string): string | null {
  const m = /^features\/([^/]+)\//.exec(path);
  return m ? m[1] : null;
}

/** The classes a stylesheet defines (its selectors' .names), comments left out. */
function classesOf(css: string): Set<string> {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  return new Set([...text.matchAll(/\.(-?[a-zA-Z_][\w-]*)/g)].map((m) => m[1]));
}

/** The literal class names a component's className attributes name (template parts before any ${}). */
function classNamesIn(tsx: string): string[] {
  const names: string[] = [];
  for (const m of tsx.matchAll(/className=(?:"([^"]*)"|\{'([^']*)'\}|\{`([^`]*)`\})/g)) {
    const value = (m[1] ?? m[2] ?? m[3] ?? '').replace(/\$\{[^}]*\}/g, ' ');
    names.push(...value.split(/\s+/).filter(Boolean));
  }
  return names;
}

/** For each class, the stylesheets that define it. */
const definedIn = new Map<string, string[]>();
for (const path of FILES.filter((p) => p.endsWith('.css'))) {
  for (const name of classesOf(readFileSync(new URL(path, SRC), 'utf8'))) {
    definedIn.set(name, [...(definedIn.get(name) ?? []), path]);
  }
}

describe('classNamesIn', () => {
  it('reads plain, quoted and template class names', () => {
    expect(classNamesIn('<p className="a b" /><i className={\'c\'} /><b className={`d ${x ? "e" : ""} f`} />')).toEqual(['a', 'b', 'c', 'd', 'f']);
  });
});

describe('style boundaries', () => {
  for (const path of FILES.filter((p) => p.endsWith('.tsx'))) {
    const own = featureOf(path);
    it(path, () => {
      const borrowed = classNamesIn(readFileSync(new URL(path, SRC), 'utf8')).filter((name) => {
        const where = definedIn.get(name) ?? [];
        // A class no stylesheet defines (a test hook, a state) borrows nothing.
        return where.length > 0 && where.every((css) => featureOf(css) !== null && featureOf(css) !== own);
      });
      expect(borrowed).toEqual([]);
    });
  }
});
