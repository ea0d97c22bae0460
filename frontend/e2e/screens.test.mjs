// Browser tests of every admin section on a phone and a desktop (no
// sideways scrolling, whole words, 44 px targets, axe at 0, screenshots),
// the keyboard, the Knowledge area, images and link cards on a card, and
// Insights. Headless Chromium against the real web binary, a seeded
// Postgres and Redis (see stack.mjs and seed.sql).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as admin from './admin.mjs';
import { eventually, expectCount, expectText, login, newPage, openSection, text } from './admin.mjs';
import { SCREENSHOTS, fileStack, noUncaughtErrors } from './stack.mjs';

const { stack, pageErrors } = fileStack();

/** A new page in a fresh context (own storage and cookies). */
const openPage = (options) => newPage(stack, (err) => pageErrors.push(err), options);

function statusOf(id) {
  return stack.db(`SELECT status FROM posts WHERE id = ${id}`);
}

/** A fresh page at width × height holding a valid admin token. */
const adminPage = (width, height) => admin.adminPage(stack, width, height, (err) => pageErrors.push(err));

/** The admin sections: label, path, and what shows once loaded. */
const SECTIONS = [
  { label: 'Review', path: '/diaries666op/dashboard', ready: (page) => page.getByTestId('review-card').first() },
  { label: 'Spend', path: '/diaries666op/spend', ready: (page) => page.getByTestId('spend-today') },
  { label: 'Persona', path: '/diaries666op/persona', ready: (page) => page.getByTestId('persona-name') },
  { label: 'Settings', path: '/diaries666op/settings', ready: (page) => page.getByLabel('Targeted accounts') },
  // The figures, not the "Reading the figures…" that comes first.
  { label: 'Insights', path: '/diaries666op/insights', ready: (page) => page.getByTestId('insights-asof').or(page.getByTestId('insights-empty')) },
];


/** The elements of the admin's bar and page that reach past the viewport's sides (none inside a scroll box). */
const sidewaysOverflow = (page) => admin.sidewaysOverflow(page);

/** The buttons, links styled as buttons, tabs and section links smaller than 44×44 px. */
const smallTargets = (page) => admin.smallTargets(page, '.admin-top .btn, .admin-page .btn, .admin-nav-link, .tab, .review-ids summary');

/** axe-core's violations on the page, one line each. */
const axeViolations = (page) => admin.axeViolations(page);

/** The words of names, handles and badges broken across lines: each should wrap whole. */
const brokenWords = (page) =>
  admin.brokenWords(page, '.review-name, .review-sub > *, .badge, .admin-nav-link, .tab, .figure-table th, .stats-label');

describe('the admin on a phone and a desktop', () => {
  const SIZES = [
    [390, 844],
    [360, 740],
    [1280, 900],
  ];

  it('every section: no sideways scrolling, names and badges wrap as words, axe finds nothing, screenshots kept', { timeout: 300_000 }, async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // A card that crowds its header: a long name and every badge.
    stack.db(`INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
      original_post_user, author_username, category, proposed_response, flags, reply_route)
      VALUES ('sandbox', 'targeted', 'pending', 'targeted-crowded-1', 'targeted-crowded-1', 'Crowded header',
      'Maximilian Bartholomew Fitzgerald-Worthington the Third', 'maximilian_bfw3', 'gluttony', 'Too many names.',
      '{near_duplicate}', 'manual')`);
    try {
      for (const [width, height] of SIZES) {
        const page = await adminPage(width, height);
        for (const section of SECTIONS) {
          await page.goto(section.path);
          await section.ready(page).waitFor();
          assert.deepEqual(await sidewaysOverflow(page), [], `${section.label} at ${width} px scrolls sideways`);
          assert.deepEqual(await brokenWords(page), [], `${section.label} at ${width} px breaks words`);
          assert.deepEqual(await smallTargets(page), [], `${section.label} at ${width} px`);
          assert.deepEqual(await axeViolations(page), [], `${section.label} at ${width} px`);
          await page.screenshot({ path: join(SCREENSHOTS, `admin-${section.label.toLowerCase()}-${width}x${height}.png`), fullPage: true });
        }
        await page.goto('/diaries666op/dashboard?tab=targeted');
        const crowded = page.getByRole('heading', { name: 'Maximilian Bartholomew Fitzgerald-Worthington the Third' });
        await crowded.waitFor();
        assert.deepEqual(await sidewaysOverflow(page), [], `the crowded card at ${width} px`);
        assert.deepEqual(await brokenWords(page), [], `words broken at ${width} px`);
        const box = await crowded.boundingBox();
        assert.ok(box.width >= 120, `the name is squeezed to ${box.width} px at ${width} px`);
        await page.screenshot({ path: join(SCREENSHOTS, `admin-crowded-card-${width}x${height}.png`), fullPage: true });
        await page.context().close();
      }
    } finally {
      stack.db(`DELETE FROM posts WHERE original_post_id = 'targeted-crowded-1'`);
    }
  });

  it('settings: Mastodon\'s "Answer direct mentions" shows while Mastodon runs, is saved and kept, and axe finds nothing; hidden, a save keeps it', { timeout: 120_000 }, async () => {
    const stored = () => stack.db(`SELECT coalesce(platform_options->'mastodon'->>'reply_to_direct', 'unset') FROM settings`);
    // The options of Mastodon alone, as settings.platform_options holds them.
    const setStored = (json) =>
      stack.db(`INSERT INTO settings (id, platform_options) VALUES (true, '{"mastodon": ${json}}') ON CONFLICT (id) DO UPDATE SET platform_options = excluded.platform_options`);
    setStored('{}');
    for (const [width, height] of [
      [360, 740],
      [1280, 900],
    ]) {
      const page = await adminPage(width, height);
      // The stack runs the sandbox: the platforms' table says Mastodon runs too.
      await page.route('**/api/platforms', async (route) => {
        const res = await route.fetch();
        const table = await res.json();
        table.platforms = table.platforms.map((p) => (p.name === 'mastodon' ? { ...p, running: true } : p));
        await route.fulfill({ response: res, json: table });
      });
      await page.goto('/diaries666op/settings');
      const panel = page.getByTestId('settings-panel');
      const direct = panel.getByLabel('Answer direct mentions');
      await direct.waitFor();
      assert.equal(await direct.isChecked(), stored() === 'true', `shown as stored at ${width} px`);
      const fieldset = panel.getByTestId('settings-platform-mastodon');
      await expectText(fieldset.locator('legend'), 'Mastodon');
      await expectText(fieldset.locator('.field-hint'),
        'On, a direct mention is answered direct, never wider; off, it is left unanswered (skipped: direct_message). Applies from the next scan or send.');
      assert.equal(await direct.getAttribute('aria-describedby'), await fieldset.locator('.field-hint').getAttribute('id'));
      const want = !(await direct.isChecked());
      await direct.setChecked(want);
      if (width === 1280) {
        // A refusal naming the option shows beside its checkbox, and the form keeps the edit.
        const refusal = 'field "platforms.mastodon.reply_to_direct" must be a bool';
        await page.route('**/api/settings', (route) =>
          route.request().method() === 'PUT'
            ? route.fulfill({ status: 400, json: { error: refusal, field: 'platforms.mastodon.reply_to_direct' } })
            : route.fallback());
        await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
        await expectText(panel.getByTestId('settings-error-platforms.mastodon.reply_to_direct'), refusal);
        assert.equal(await direct.getAttribute('aria-invalid'), 'true');
        assert.equal(await direct.isChecked(), want);
        await page.unroute('**/api/settings');
      }
      await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
      await expectText(panel.getByTestId('settings-saved'), 'Settings saved: the next scans use them');
      assert.equal(stored(), String(want));
      await page.reload();
      await eventually(async () => assert.equal(await direct.isChecked(), want));
      assert.deepEqual(await sidewaysOverflow(page), [], `settings with Mastodon at ${width} px scrolls sideways`);
      assert.deepEqual(await smallTargets(page), [], `settings with Mastodon at ${width} px`);
      assert.deepEqual(await axeViolations(page), [], `settings with Mastodon at ${width} px`);
      await page.screenshot({ path: join(SCREENSHOTS, `admin-settings-mastodon-${width}x${height}.png`), fullPage: true });
      await page.context().close();
    }
    // On the sandbox alone the checkbox is not shown, and a save keeps what is stored.
    setStored('{"reply_to_direct": true}');
    const page = await adminPage(1280, 900);
    await page.goto('/diaries666op/settings');
    const panel = page.getByTestId('settings-panel');
    await panel.getByLabel('Targeted accounts').waitFor();
    assert.equal(await panel.getByTestId('settings-platform-mastodon').count(), 0, 'no Mastodon settings without Mastodon');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    await expectText(panel.getByTestId('settings-saved'), 'Settings saved: the next scans use them');
    assert.equal(stored(), 'true', 'a save with the checkbox hidden keeps it');
    setStored('{}');
    await page.context().close();
  });

  it('on a phone the first card shows under the statistics, the tabs and the sort, with 44 px targets and the counter', async () => {
    for (const [width, height] of SIZES.slice(0, 2)) {
      const page = await adminPage(width, height);
      await page.goto('/diaries666op/dashboard');
      const card = page.getByTestId('review-card').first();
      const original = card.getByTestId('original-text');
      await original.waitFor();
      const nav = await page.getByRole('navigation', { name: 'Admin sections' }).boundingBox();
      // The bar is along the bottom, and the first card's post text starts above it, unscrolled.
      assert.ok(nav.y + nav.height >= height - 1 && nav.y > height / 2, `the navigation is not a bottom bar at ${width} px`);
      const text = await original.boundingBox();
      assert.ok(text.y >= 0 && text.y + 24 <= nav.y, `the first card's text starts at ${text.y} px, the bar at ${nav.y} (${width}×${height})`);
      const above = await page.evaluate(() => {
        const top = document.querySelector('[data-testid="original-text"]').getBoundingClientRect().top;
        const parts = ['.stats-panel', '.tabs', '#sort-by'].map((s) => document.querySelector(s).getBoundingClientRect().bottom);
        return parts.every((b) => b <= top);
      });
      assert.ok(above, 'the statistics, the tabs and the sort come before the card');

      for (const name of ['Approve', 'Reject', 'Regenerate']) {
        const b = await card.getByRole('button', { name, exact: true }).boundingBox();
        assert.ok(b.width >= 44 && b.height >= 44, `${name} is ${b.width}×${b.height} at ${width} px`);
      }
      const edit = await card.getByLabel('Proposed response').boundingBox();
      assert.ok(edit.width >= 44 && edit.height >= 44, `the response is ${edit.width}×${edit.height}`);
      for (const link of await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link').all()) {
        const b = await link.boundingBox();
        assert.ok(b.width >= 44 && b.height >= 44, `a section link is ${b.width}×${b.height}`);
      }

      // The counter and its bar follow the text as on a desktop.
      const response = card.getByLabel('Proposed response');
      await response.fill('x'.repeat(300));
      await expectText(card.getByTestId('char-counter'), '300 / 280 characters');
      await card.getByRole('button', { name: 'Response Too Long' }).waitFor();
      await card.getByRole('button', { name: 'Undo edits' }).click();

      // The top bar's actions are behind Menu.
      const refresh = page.getByRole('button', { name: 'Refresh', exact: true });
      assert.equal(await refresh.isVisible(), false);
      await page.getByRole('button', { name: 'Menu', exact: true }).click();
      await refresh.waitFor();
      await page.context().close();
    }
  });

  it('a decision on a draft changed since it was shown posts nothing and shows the new text, alone and in bulk', async () => {
    const page = await adminPage(1280, 900);
    await page.goto('/diaries666op/dashboard');
    const cards = page.getByTestId('review-card');
    await cards.nth(2).waitFor();
    const [a, b, c] = await cards.evaluateAll((els) => els.slice(0, 3).map((el) => Number(el.getAttribute('data-post-id'))));
    const cardOf = (id) => page.locator(`[data-testid="review-card"][data-post-id="${id}"]`);
    const version = (id) => Number(stack.db(`SELECT draft_version FROM posts WHERE id = ${id}`));
    const rewrite = (id, words) =>
      stack.db(`UPDATE posts SET proposed_response = '${words}', draft_version = draft_version + 1, updated_at = now() WHERE id = ${id}`);

    // Approve, after the writer changed the draft behind the card: refused, nothing posted, the new text shown.
    const shown = version(a);
    assert.ok(shown >= 1);
    rewrite(a, 'A newer sin, unseen.');
    await cardOf(a).getByRole('button', { name: 'Approve', exact: true }).click();
    await expectText(page.getByTestId('banner-error'), 'The draft changed since it was shown: its card now shows the new text, and nothing was posted.');
    await expectText(cardOf(a).getByTestId('stale-draft'), 'The draft changed since it was shown: this is the new text, and nothing was posted. Check it and decide again.');
    await eventually(async () => assert.equal(await cardOf(a).getByLabel('Proposed response').inputValue(), 'A newer sin, unseen.'));
    assert.equal(statusOf(a), 'pending');
    // Seen now: approving it sends the new version and goes through.
    await cardOf(a).getByRole('button', { name: 'Approve', exact: true }).click();
    await eventually(async () => assert.match(statusOf(a), /^(approved|posted)$/));
    assert.equal(stack.db(`SELECT proposed_response FROM posts WHERE id = ${a}`), 'A newer sin, unseen.');

    // Reject likewise.
    rewrite(b, 'Another rewrite.');
    await cardOf(b).getByRole('button', { name: 'Reject', exact: true }).click();
    await cardOf(b).getByTestId('stale-draft').waitFor();
    assert.equal(statusOf(b), 'pending');

    // In bulk: the changed one is reported as such, the other goes through.
    await eventually(async () => assert.equal(await cardOf(b).getByLabel('Proposed response').inputValue(), 'Another rewrite.'));
    await cardOf(b).getByRole('checkbox').check();
    await cardOf(c).getByRole('checkbox').check();
    rewrite(c, 'Changed while selected.');
    await page.getByRole('button', { name: 'Approve selected', exact: true }).click();
    await eventually(async () =>
      assert.deepEqual(await page.getByTestId('bulk-results').locator('li').allTextContents(), [
        `#${b}: approved`,
        `#${c}: failed: the draft changed since it was shown`,
      ]),
    );
    assert.match(statusOf(b), /^(approved|posted)$/);
    assert.equal(statusOf(c), 'pending');
    await cardOf(c).getByTestId('stale-draft').waitFor();
    await eventually(async () => assert.equal(await cardOf(c).getByLabel('Proposed response').inputValue(), 'Changed while selected.'));
    await page.context().close();
  });

  it('the keyboard on a desktop: j and k move, a r e g x act on the focused card, ? lists them, and typing fires none', { timeout: 120_000 }, async () => {
    const page = await adminPage(1280, 900);
    await page.goto('/diaries666op/dashboard');
    const cards = page.getByTestId('review-card');
    await cards.first().waitFor();
    const focusedId = () => page.evaluate(() => document.activeElement?.closest('[data-testid="review-card"]')?.getAttribute('data-post-id'));
    const ids = await cards.evaluateAll((els) => els.map((el) => el.getAttribute('data-post-id')));

    // From nowhere, j takes the first card; j and k then step.
    await page.keyboard.press('j');
    assert.equal(await focusedId(), ids[0]);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.equal(await focusedId(), ids[2]);
    await page.keyboard.press('k');
    assert.equal(await focusedId(), ids[1]);

    // x selects the focused card and again deselects it.
    const count = page.getByTestId('selected-count');
    await page.keyboard.press('x');
    await eventually(async () => assert.match(await text(count), /^1 selected/));
    await page.keyboard.press('x');
    await eventually(async () => assert.match(await text(count), /^0 selected/));

    // ? lists every key; Escape closes the list.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    assert.deepEqual(await help.locator('kbd').allTextContents(), ['j', 'k', 'a', 'r', 'e', 'g', 'x', '?']);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });

    // e edits: the focus is in the response, where a, r, g and x are only letters.
    const second = cards.nth(1);
    await second.focus();
    await page.keyboard.press('e');
    const response = second.getByLabel('Proposed response');
    assert.equal(await response.evaluate((el) => el === document.activeElement), true);
    const draft = await response.inputValue();
    await page.keyboard.type('argx?');
    assert.equal(await response.inputValue(), draft + 'argx?');
    await second.getByTestId('instruction').press('r');
    assert.equal(statusOf(Number(ids[1])), 'pending', 'a key typed in a field judged the post');
    assert.equal(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count(), 0, 'typing ? opened the list');
    await second.getByRole('button', { name: 'Undo edits' }).click();
    await second.getByTestId('instruction').fill('');

    // g regenerates the focused card: the task is queued (no worker runs here), then the banner says it is on its way.
    const pendingTasks = async () => Number((await stack.redis([['LLEN', 'asynq:{high}:pending']]))[0].replace(/^:/, ''));
    const before = await pendingTasks();
    await second.focus();
    await page.keyboard.press('g');
    await eventually(async () => assert.equal(await pendingTasks(), before + 1));
    await eventually(
      async () => assert.equal(await text(page.getByTestId('banner-success')), 'The writer is still at it: the new draft will appear here shortly'),
      60_000,
    );
    // The history lists the decision, and its channel.
    await second.getByTestId('history-toggle').click();
    await eventually(async () => assert.match(await text(second.getByTestId('decision').last()), /^New draft asked on the web, version 1, /));
    // and the card's latency: mention → draft.
    assert.match(await text(second.getByTestId('timing')), /^Mention → draft \d/);

    // r rejects and a approves the focused card.
    const first = cards.first();
    const firstId = Number(await first.getAttribute('data-post-id'));
    await first.focus();
    await page.keyboard.press('r');
    await eventually(async () => assert.equal(statusOf(firstId), 'rejected'));
    await eventually(async () => assert.notEqual(await cards.first().getAttribute('data-post-id'), String(firstId)));
    const next = cards.first();
    const nextId = Number(await next.getAttribute('data-post-id'));
    await next.focus();
    await page.keyboard.press('a');
    await eventually(async () => assert.match(statusOf(nextId), /^(approved|posted)$/));
    await page.context().close();
  });
});

describe('knowledge', () => {
  it('the Persona section\'s Knowledge area: upload, list, search, disable and delete, at 360 and 1280 px, axe finds nothing', { timeout: 180_000 }, async () => {
    for (const width of [360, 1280]) {
      const page = await adminPage(width, 800);
      await page.goto('/diaries666op/persona');
      const area = page.getByTestId('knowledge');
      await area.waitFor();
      const title = `Sauna rules ${width}`;
      await area.getByTestId('knowledge-file').setInputFiles({
        name: `${title}.md`,
        mimeType: 'text/markdown',
        buffer: Buffer.from('# Sauna\n\nThe brimstone sauna opens on Sundays at noon.\n\n# Towels\n\nTowels are asbestos.\n'),
      });
      const doc = area.getByTestId('knowledge-doc').filter({ hasText: title });
      await doc.waitFor();
      await expectText(doc.locator('.knowledge-doc-meta'), '2 chunks · 1 KB');
      // A wrong type is refused in the browser, before any upload.
      await area.getByTestId('knowledge-file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('png') });
      await expectText(area.getByTestId('knowledge-error'), 'Only .md and .txt files');

      await area.getByTestId('knowledge-q').fill('when does the brimstone sauna open on Sundays');
      await area.getByRole('button', { name: 'Search', exact: true }).click();
      const fact = area.getByTestId('knowledge-fact').first();
      await fact.waitFor();
      assert.match(await fact.innerText(), /brimstone sauna opens on Sundays at noon/);
      // The stack runs without EMBEDDINGS_MODEL: the search says it ranked by text.
      await expectText(area.getByTestId('knowledge-ranking'), 'Ranked by text alone: EMBEDDINGS_MODEL is not set');
      assert.deepEqual(await sidewaysOverflow(page), [], `Knowledge at ${width} px scrolls sideways`);
      assert.deepEqual(await axeViolations(page), [], `Knowledge at ${width} px`);

      // The box follows the stored state: it changes once the server answers.
      await doc.getByRole('checkbox').click();
      await eventually(async () => assert.equal(stack.db(`SELECT enabled FROM knowledge_documents WHERE title = '${title}'`), 'f'));
      await doc.getByRole('button', { name: `Delete ${title}` }).click();
      await eventually(async () => assert.equal(stack.db(`SELECT count(*) FROM knowledge_documents WHERE title = '${title}'`), '0'));
      await page.context().close();
    }
  });
});

describe('images and link cards on the review card', () => {
  it('shows the thumbnails from MEDIA_HOSTS with their alt texts, another host as a link, and the link card, at 360 and 1280 px', { timeout: 120_000 }, async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const goat = `${stack.media.base}/media/goat.png`;
    const fire = `${stack.media.base}/media/fire.png`;
    const media = JSON.stringify([
      { type: 'photo', url: goat, preview_url: '', alt: 'a goat in a red cape' },
      { type: 'photo', url: fire, preview_url: '', alt: '' },
      { type: 'photo', url: 'https://elsewhere.example/tracker.png', preview_url: '', alt: 'from elsewhere' },
    ]);
    const link = JSON.stringify({ url: 'https://www.pit.example/hours', title: "The pit's hours", description: 'Open all night.' });
    stack.db(`INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
      original_post_user, author_username, category, proposed_response, reply_route, media_url, media, link)
      VALUES ('sandbox', 'mention', 'pending', 'media-card-1', 'media-card-1', '@infernal_ai what do you make of this?',
      'Goat Keeper', 'goat_keeper', 'pride', 'A goat in a cape is a sinner in training.', 'api', '${goat}',
      '${media.replaceAll("'", "''")}', '${link.replaceAll("'", "''")}')`);
    try {
      const token = await admin.adminToken(stack);
      for (const [width, height] of [
        [360, 740],
        [1280, 900],
      ]) {
        // The stand-in's certificate is made for the run: this context trusts it.
        const page = await openPage({ width, height, ignoreHTTPSErrors: true });
        await page.addInitScript((t) => localStorage.setItem('token', t), token);
        await page.goto('/diaries666op/dashboard?tab=mentions');
        const card = page.getByTestId('review-card').filter({ hasText: 'what do you make of this?' });
        const thumbs = card.getByTestId('post-media-thumb');
        await expectCount(thumbs, 2);
        await eventually(async () => {
          const loaded = await thumbs.evaluateAll((imgs) => imgs.map((i) => i.complete && i.naturalWidth > 0));
          assert.deepEqual(loaded, [true, true], 'both thumbnails load from the media host');
        });
        assert.equal(await thumbs.first().getAttribute('alt'), 'a goat in a red cape');
        assert.equal(await thumbs.nth(1).getAttribute('alt'), 'Image 2 without a description');
        assert.equal(await thumbs.first().getAttribute('referrerpolicy'), 'no-referrer');
        const captions = await card.locator('.post-media-item figcaption').allTextContents();
        assert.deepEqual(captions, ['a goat in a red cape', 'No description']);
        // Another host's image is a link, never loaded.
        const elsewhere = card.getByTestId('post-media-link');
        await expectText(elsewhere, 'from elsewhere (opens in a new tab)');
        assert.equal(await elsewhere.getAttribute('href'), 'https://elsewhere.example/tracker.png');
        assert.equal(await card.locator('img[src*="elsewhere.example"]').count(), 0);
        const linkCard = card.getByTestId('post-link-card');
        await expectText(linkCard.locator('.post-link-title'), "The pit's hours");
        await expectText(linkCard.locator('.post-link-host'), 'pit.example');
        for (const box of await thumbs.evaluateAll((imgs) => imgs.map((i) => i.getBoundingClientRect().right))) {
          assert.ok(box <= width, `a thumbnail reaches ${box} px at ${width} px`);
        }
        assert.deepEqual(await sidewaysOverflow(page), [], `the card at ${width} px scrolls sideways`);
        assert.deepEqual(await axeViolations(page), [], `the card at ${width} px`);
        await page.screenshot({ path: join(SCREENSHOTS, `admin-media-card-${width}x${height}.png`), fullPage: true });
        await page.context().close();
      }
      assert.ok(stack.media.requests.length >= 2, 'the media host served the thumbnails');
      assert.deepEqual(
        stack.media.requests.filter((r) => r.referer !== ''),
        [],
        'no thumbnail request carries a Referer',
      );
    } finally {
      stack.db(`DELETE FROM posts WHERE original_post_id = 'media-card-1'`);
    }
  });
});

describe('insights', () => {
  it('the Insights section: the funnel, a chart and its table, the gap state, and a lookup of a dropped retweet', async () => {
    stack.db(`INSERT INTO metric_gaps (reason, started_at, ended_at)
      VALUES ('X credits ran out', date_trunc('day', now()) - interval '2 days' + interval '3 hours',
        date_trunc('day', now()) - interval '2 days' + interval '9 hours')`);
    stack.db(`INSERT INTO scan_ledger (platform, platform_post_id, source, reason)
      VALUES ('sandbox', '1900000000000000001', 'mention', 'retweet') ON CONFLICT DO NOTHING`);
    const seen = Number(stack.db(`SELECT (SELECT count(*) FROM posts WHERE source <> 'profile' AND inserted_at > now() - interval '7 days')
      + (SELECT count(*) FROM scan_ledger WHERE seen_at > now() - interval '7 days')`));
    const gapDay = stack.db(`SELECT to_char(date_trunc('day', now()) - interval '2 days', 'MM-DD')`);
    // The seeded drafts written in a persona version count as drafted, so the version table shows.
    stack.db(`UPDATE posts SET drafted_at = coalesce(drafted_at, now()) WHERE original_post_id IN ('conv-pending-1', 'conv-pending-3')`);
    // The figures the earlier tests' dashboards had computed are forgotten: these are computed now.
    stack.db('DELETE FROM insights_cache');
    const page = await openPage();
    await login(page);
    await openSection(page, 'Insights');
    const panel = page.getByTestId('insights-panel');
    await panel.getByRole('heading', { name: 'Insights' }).waitFor();

    // The funnel is a table: the posts seen, each counted once.
    const funnel = panel.getByTestId('insights-funnel');
    await expectText(funnel.getByRole('row', { name: /^Seen / }).getByRole('cell').first(), String(seen));
    await funnel.getByRole('rowheader', { name: 'Skipped: retweet' }).waitFor();

    // A chart is drawn, and its figures are a table behind a toggle.
    const daily = panel.getByTestId('insights-daily');
    await daily.getByTestId('chart-daily-posts').locator('canvas').first().waitFor();
    const toggle = daily.getByTestId('table-daily-posts');
    assert.equal(await toggle.getByRole('table').isVisible(), false);
    await toggle.getByText('Show the figures as a table').click();
    const table = toggle.getByRole('table');
    await table.waitFor();
    await expectCount(table.getByRole('columnheader'), 3);
    assert.ok((await table.getByRole('row').count()) >= 8, 'a row a day of the week');

    // The gap: said in words, and "no data" in the table, not zero.
    const engagement = panel.getByTestId('insights-engagement');
    await expectText(engagement.getByRole('note'), `No data: X credits ran out on ${gapDay}`);
    await engagement.getByText('Show the figures as a table').click();
    const gapRow = engagement.getByRole('row', { name: new RegExp(gapDay) });
    await expectText(gapRow.getByRole('cell').last(), 'no data');

    // Every table stays inside its figure (a wide one scrolls in its own box), and a scrolling box is
    // reachable by keyboard and named.
    const outside = await panel.evaluate((el) =>
      [...el.querySelectorAll('.insights-figure table')]
        .filter((t) => !t.closest('.insights-scroll') && t.getBoundingClientRect().right > t.closest('.insights-figure').getBoundingClientRect().right + 1)
        .map((t) => t.closest('.insights-figure').dataset.testid),
    );
    assert.deepEqual(outside, [], 'tables wider than their figure');
    const versions = panel.getByTestId('insights-versions');
    const versionsBox = await versions.boundingBox();
    const versionsTable = await versions.getByRole('table').boundingBox();
    assert.ok(versionsTable.x + versionsTable.width <= versionsBox.x + versionsBox.width + 1, 'the persona-version table overflows its column');
    await panel.getByRole('region', { name: 'Posts seen per weekday and hour, table' }).focus();
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Posts seen per weekday and hour, table');
    assert.equal(await panel.getByText('until approvals record who made them').count(), 0);

    // The lookup says why a dropped repost was not answered.
    await panel.getByLabel('Did it see my mention? Post URL or id').fill('https://x.com/mortal/status/1900000000000000001');
    await panel.getByRole('button', { name: 'Look up' }).click();
    await expectText(panel.getByTestId('lookup-answer'), 'Post 1900000000000000001 was seen; its fate: skipped (retweet).');
    await page.context().close();
  });
});

noUncaughtErrors(pageErrors);
