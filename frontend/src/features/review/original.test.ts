import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ContentWarning } from './ContentWarning';
import { OpenOriginal } from './OpenOriginal';
import { openLabel, pageHref } from './original';

const TABLE = [
  { name: 'x', label: 'X' },
  { name: 'mastodon', label: 'Mastodon' },
];

describe('openLabel', () => {
  it.each([
    ['mastodon', 'Open on Mastodon'],
    ['x', 'Open on X'],
    ['bluesky', 'Open on bluesky'],
  ])('%s → %s', (platform, want) => {
    expect(openLabel(platform, TABLE)).toBe(want);
  });
});

describe('pageHref', () => {
  it.each([
    ['https://m.example/@alice/113', 'https://m.example/@alice/113'],
    ['http://127.0.0.1:3000/@alice/1', 'http://127.0.0.1:3000/@alice/1'],
    ['javascript:alert(1)', ''],
    ['data:text/html,<b>x</b>', ''],
    ['/relative', ''],
    ['', ''],
    [null, ''],
    [undefined, ''],
  ])('%s → %s', (url, want) => {
    expect(pageHref(url)).toBe(want);
  });
});

describe('ContentWarning', () => {
  it('labels the warning on its own line', () => {
    const html = renderToStaticMarkup(createElement(ContentWarning, { text: 'film <ending>' }));
    expect(html).toBe(
      '<p class="review-cw" data-testid="content-warning"><span class="review-cw-label">Content warning:</span> film &lt;ending&gt;</p>',
    );
  });
  it.each(['', '   '])('shows nothing for %j', (text) => {
    expect(renderToStaticMarkup(createElement(ContentWarning, { text }))).toBe('');
  });
});

describe('OpenOriginal', () => {
  it('opens the page in a new tab, named by the platform', () => {
    const html = renderToStaticMarkup(createElement(OpenOriginal, { url: 'https://m.example/@alice/113', platform: 'mastodon', platforms: TABLE }));
    expect(html).toContain('href="https://m.example/@alice/113"');
    expect(html).toContain('target="_blank"');
    expect(html).toContain('rel="noopener noreferrer"');
    expect(html).toContain('>Open on Mastodon<span class="visually-hidden"> (opens in a new tab)</span></a>');
  });
  it.each(['', 'javascript:alert(1)'])('shows nothing for %j', (url) => {
    expect(renderToStaticMarkup(createElement(OpenOriginal, { url, platform: 'x', platforms: TABLE }))).toBe('');
  });
});
