// Browser tests of a Mastodon post on the review card (issue 39): the
// platform's badge, the content warning on its own line, the link that
// opens the original on its server, and the counter against the limit the
// server announced less the warning the reply carries; at 360 px and
// 1280 px with axe at 0. Headless Chromium against the real web binary and
// a seeded Postgres and Redis (stack.mjs, seed.sql).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { adminPage, axeViolations, brokenWords, expectText, sidewaysOverflow, smallTargets } from './admin.mjs';
import { SCREENSHOTS, startStack } from './stack.mjs';

let stack;
const pageErrors = [];

/** The warning and the reply of the seeded Mastodon mention. */
const WARNING = 'spoilers for the film ending';
const REPLY = '@mortal@example.social The ending was mine all along.';
const PAGE = 'https://example.social/@mortal/109999999999999999';

before(async () => {
  stack = await startStack();
  // Drafted under a server limit of 1000 characters; the warning counts against it.
  stack.db(`INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
      original_post_user, author_username, author_id, category, proposed_response, content_warning, web_url, max_length)
    VALUES ('mastodon', 'mention', 'pending', '109999999999999999', '109999999999999999',
      '@infernal what did you make of the ending? I cried for an hour.', 'Mortal', 'mortal@example.social', '4242', 'envy',
      '${REPLY}', '${WARNING}', '${PAGE}', 1000)`);
}, { timeout: 900_000 });

after(async () => {
  if (stack) await stack.stop();
});

describe('a Mastodon post on the review card', () => {
  it('shows its badge, its content warning apart, the link to its page and the server limit less the warning; no sideways scrolling, 44 px targets, whole words, axe finds nothing', { timeout: 180_000 }, async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const id = stack.db(`SELECT id FROM posts WHERE original_post_id = '109999999999999999'`);
    for (const [width, height] of [[360, 740], [1280, 900]]) {
      const page = await adminPage(stack, width, height, (e) => pageErrors.push(e));
      try {
        await page.goto('/diaries666op/dashboard');
        await page.getByRole('tab', { name: 'Mentions', exact: true }).click();
        const card = page.locator(`[data-testid="review-card"][data-post-id="${id}"]`);
        await card.waitFor();
        await expectText(card.getByTestId('platform-badge'), 'Mastodon');
        // The web tier runs PLATFORM=sandbox: the card says the post's platform is not running.
        await card.getByTestId('platform-not-running').waitFor();
        await expectText(card.getByTestId('content-warning'), `Content warning: ${WARNING}`);
        assert.ok(!(await card.getByTestId('original-text').textContent()).includes(WARNING), 'the warning is in the post text');
        const open = card.getByTestId('open-original');
        assert.equal(await open.getAttribute('href'), PAGE);
        assert.equal(await open.getAttribute('target'), '_blank');
        assert.equal(await open.getAttribute('rel'), 'noopener noreferrer');
        assert.match(await open.textContent(), /^Open on Mastodon/);
        // Mastodon counts characters (the mention's domain not), against 1000 less the warning's 28.
        await expectText(card.getByTestId('char-counter'), `${'@mortal The ending was mine all along.'.length} / 972 characters`);
        assert.deepEqual(await sidewaysOverflow(page), [], `the card at ${width} px scrolls sideways`);
        assert.deepEqual(await smallTargets(page, '.review-open a'), [], `at ${width} px`);
        assert.deepEqual(await brokenWords(page, '.review-cw, .badge'), [], `at ${width} px`);
        assert.deepEqual(await axeViolations(page), [], `at ${width} px`);
        await page.screenshot({ path: join(SCREENSHOTS, `mastodon-card-${width}x${height}.png`), fullPage: true });
      } finally {
        await page.context().close();
      }
    }
  });

  it('no page threw an uncaught error', () => {
    assert.deepEqual(pageErrors, []);
  });
});
