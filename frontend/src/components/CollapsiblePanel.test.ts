import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { CollapsiblePanel } from './CollapsiblePanel';

// What a static render shows: the panel as it first appears, closed. Opening
// it, its page and its reset are exercised in the browser tests (the
// waiting and skipped panels of the review).
describe('CollapsiblePanel', () => {
  it('starts closed: its heading names it, the toggle offers to show, the body is not rendered', () => {
    const body = vi.fn(() => 'the list');
    const html = renderToStaticMarkup(
      createElement(CollapsiblePanel, { title: 'Waiting', showLabel: 'Show them', hideLabel: 'Hide them', testId: 'p', resetKey: 'x', children: body }),
    );
    expect(body).not.toHaveBeenCalled();
    expect(html).not.toContain('the list');
    expect(html).toMatch(/^<section class="collapsible-panel" aria-labelledby="([^"]+)-title" data-testid="p">/);
    const id = /aria-labelledby="([^"]+)-title"/.exec(html)?.[1];
    expect(html).toContain(`<h2 id="${id}-title" class="collapsible-panel-title">Waiting</h2>`);
    expect(html).toContain(`<button type="button" class="btn btn-ghost" aria-expanded="false" aria-controls="${id}-body">Show them</button>`);
  });
});
