import { describe, expect, it } from 'vitest';
import { contrastRatio, cssVariables } from './lib/contrast';
import { readdirSync, readFileSync } from 'node:fs';

const themeCss = readFileSync(new URL('./theme.css', import.meta.url), 'utf8');
// Every stylesheet but the theme: the global one, and the ones the lazy pages and features load with their chunks.
const STYLESHEETS = (readdirSync(new URL('.', import.meta.url), { recursive: true }) as string[])
  .filter((path) => path.endsWith('.css') && path !== 'theme.css')
  .map((path) => `./${path}`)
  .sort();

const vars = cssVariables(themeCss);

/** Text colour, background colour, minimum ratio (4.5 for text, 3 for large text and focus rings). */
const PAIRS: [string, string, number][] = [
  ['--color-text', '--color-bg', 4.5],
  ['--color-text', '--color-surface', 4.5],
  ['--color-text', '--color-surface-raised', 4.5],
  ['--color-text', '--color-surface-hover', 4.5],
  ['--color-text-muted', '--color-bg', 4.5],
  ['--color-text-muted', '--color-surface', 4.5],
  ['--color-text-muted', '--color-surface-raised', 4.5],
  ['--color-text-muted', '--color-surface-hover', 4.5],
  ['--color-text-muted', '--color-terminal', 4.5],
  ['--color-heading', '--color-surface', 4.5],
  ['--color-heading', '--color-bg', 4.5],
  ['--color-accent', '--color-bg', 4.5],
  ['--color-accent', '--color-surface', 4.5],
  ['--color-ember', '--color-surface', 4.5],
  ['--color-ember', '--color-bg', 4.5],
  ['--color-terminal-text', '--color-terminal', 4.5],
  ['--color-terminal-text', '--color-surface', 4.5],
  ['--color-on-primary', '--color-primary', 4.5],
  ['--color-on-primary', '--color-primary-hover', 4.5],
  ['--color-on-success', '--color-success', 4.5],
  ['--color-on-success', '--color-success-hover', 4.5],
  ['--color-on-danger', '--color-danger', 4.5],
  ['--color-on-danger', '--color-danger-hover', 4.5],
  ['--color-on-disabled', '--color-disabled', 4.5],
  ['--color-ok', '--color-surface', 4.5],
  ['--color-ok', '--color-terminal', 4.5],
  ['--color-warning', '--color-surface', 4.5],
  ['--color-warning', '--color-terminal', 4.5],
  ['--color-warning', '--color-surface-raised', 4.5],
  ['--color-ember', '--color-surface-raised', 4.5],
  ['--color-error', '--color-surface', 4.5],
  ['--color-error', '--color-terminal', 4.5],
  ['--color-banner-success-text', '--color-banner-success-bg', 4.5],
  ['--color-banner-error-text', '--color-banner-error-bg', 4.5],
  ['--color-focus', '--color-bg', 3],
  ['--color-focus', '--color-surface', 3],
  ['--color-focus', '--color-primary', 3],
];

describe('theme', () => {
  it.each(PAIRS)('%s on %s meets WCAG AA', (fg, bg, min) => {
    expect(vars[fg], fg).toBeDefined();
    expect(vars[bg], bg).toBeDefined();
    expect(contrastRatio(vars[fg], vars[bg])).toBeGreaterThanOrEqual(min);
  });

  it('finds the stylesheets of the pages and the features', () => {
    for (const path of ['./styles.css', './pages/about.css', './admin.css', './features/review/review.css']) {
      expect(STYLESHEETS).toContain(path);
    }
  });

  it.each(STYLESHEETS)('%s keeps every colour in theme.css', (path) => {
    const css = readFileSync(new URL(path, import.meta.url), 'utf8');
    const withoutComments = css.replace(/\/\*[\s\S]*?\*\//g, '');
    const literals = withoutComments.match(/#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?)\(/gi) ?? [];
    expect(literals).toEqual([]);
  });
});
