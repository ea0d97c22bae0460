// Browser tests of the public pages: home, about, the logs terminal and the
// redirects. Headless Chromium against the real web binary, a seeded
// Postgres and Redis (see stack.mjs and seed.sql). Run with `npm run test:e2e`
// after `npm run build`; TEST_DATABASE_URL and TEST_REDIS_URL must be set.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { eventually, expectCount, expectPath, expectText, newPage, text } from './admin.mjs';
import { DIST, fileStack, noUncaughtErrors } from './stack.mjs';

const { stack, pageErrors } = fileStack();

/** A new page in a fresh context (own storage and cookies). */
const openPage = (options) => newPage(stack, (err) => pageErrors.push(err), options);

describe('public pages', () => {
  it('home shows the seeded figures', async () => {
    const page = await openPage();
    const scripts = [];
    page.on('response', (res) => {
      if (res.url().endsWith('.js')) scripts.push(new URL(res.url()).pathname);
    });
    await page.goto('/');

    await expectText(page.getByTestId('posted-sins'), '20');
    await expectText(page.getByTestId('pending-sins'), '18');
    await expectText(page.getByTestId('success-rate'), '90.9%');

    // Sin Registry: posted by category with the last 24 h, and the purgatory list.
    await expectText(page.getByTestId('posted-category-wrath'), 'wrath4+3 (24h)');
    await expectText(page.getByTestId('posted-category-envy'), 'envy3+3 (24h)');
    await expectText(page.getByTestId('posted-category-lust'), 'lust1+1 (24h)');
    await page.getByText('Paperwork Pending in Purgatory', { exact: true }).waitFor();
    await expectText(page.getByTestId('pending-category-gluttony'), 'gluttony12');
    await expectText(page.getByTestId('pending-category-pride'), 'pride3');

    // Infernal Metrics.
    await expectText(page.getByTestId('engagement-total'), '30');
    await expectText(page.getByTestId('engagement-likes'), '20');
    await expectText(page.getByTestId('engagement-retweets'), '5');
    await expectText(page.getByTestId('engagement-replies'), '5');
    const since = await text(page.getByTestId('engagement-since'));
    assert.notEqual(since, 'Eternal');
    assert.notEqual(since, 'TEMPORAL ANOMALY');
    for (const label of ['Soul Bonds', 'Hellish Echoes', 'Mortal Pleas', '24h Statistics From']) {
      await page.getByText(label, { exact: true }).waitFor();
    }

    // Interactions with Mortals: 3 of 6 mentions answered; 3 of the 5 of the last 24 h.
    await expectText(page.getByTestId('total-mentions'), '6');
    await expectText(page.getByTestId('total-replies'), '3');
    await expectText(page.getByTestId('response-rate'), '50%');
    await expectText(page.getByTestId('mentions-24h'), '5');
    await expectText(page.getByTestId('replies-24h'), '3');
    await expectText(page.getByTestId('response-rate-24h'), '60%');

    // The featured latest response is the newest posted item.
    const latest = stack.db(`SELECT proposed_response FROM posts WHERE status = 'posted' ORDER BY posted_at DESC LIMIT 1`);
    await expectText(page.getByTestId('latest-response'), latest);

    for (const title of [
      'WORDS OF THE DAMNED',
      'Souls Claimed',
      'Sin Registry',
      'Infernal Metrics',
      'Interactions with Mortals',
      'Infernal Processing',
      'Infernal Disclaimer',
    ]) {
      await page.getByRole('heading', { name: title, exact: true }).waitFor();
    }
    await page.getByText('666ms', { exact: true }).waitFor();
    await page.getByText('24/7', { exact: true }).waitFor();
    assert.match(await text(page.getByTestId('iso-clock')), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const follow = page.getByRole('link', { name: /^Follow @infernal_ai/ });
    assert.equal(await follow.getAttribute('href'), 'https://x.com/infernal_ai');
    assert.equal(await follow.getAttribute('target'), '_blank');
    await page.getByRole('link', { name: 'About', exact: true }).waitFor();
    await page.getByRole('link', { name: "Access Hell's Backroom", exact: true }).waitFor();
    assert.equal(await page.locator('.particle').count(), 30);

    // The public first load carries no admin code; report its size.
    assert.ok(scripts.length > 0, 'no script loaded');
    assert.ok(!scripts.some((s) => /Admin|Review|Spend|Persona|Settings/.test(s)), `admin code on the home page: ${scripts.join(', ')}`);
    let gz = 0;
    for (const s of scripts) gz += gzipSync(readFileSync(join(DIST, s)), { level: 9 }).length;
    console.log(`home page JS: ${scripts.join(', ')}: ${gz} bytes gzip`);
    assert.ok(gz <= 100 * 1024, `the home page's first-load JS is ${gz} bytes gzip, over 100 KB`);
    await page.context().close();
  });

  it('particles stay still for reduced motion, and focus is visible', async () => {
    const page = await openPage({ reducedMotion: 'reduce' });
    await page.goto('/');
    await page.getByTestId('posted-sins').waitFor();
    assert.equal(await page.locator('.particle').count(), 30);
    assert.equal(await page.locator('.particles').evaluate((el) => getComputedStyle(el).display), 'none');
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    assert.equal(await focused.textContent(), 'Skip to content');
    assert.equal(await focused.evaluate((el) => getComputedStyle(el).outlineStyle), 'solid');
    await page.keyboard.press('Tab');
    assert.match(await page.locator(':focus').textContent(), /^Follow @infernal_ai/);
    await page.context().close();

    const moving = await openPage();
    await moving.goto('/');
    await moving.getByTestId('posted-sins').waitFor();
    assert.equal(await moving.locator('.particles').evaluate((el) => getComputedStyle(el).display), 'block');
    assert.notEqual(await moving.locator('.particle').first().evaluate((el) => getComputedStyle(el).animationName), 'none');
    await moving.context().close();
  });

  it('home shows the loading screen, then the fallback when nothing was posted', async () => {
    const page = await openPage();
    let release;
    const held = new Promise((r) => (release = r));
    await page.route('**/api/public/stats', async (route) => {
      await held;
      await route.continue();
    });
    await page.route('**/api/public/latest', (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"nothing posted yet"}' }),
    );
    await page.goto('/');
    await page.getByText('BREACHING THE GATES OF HELL', { exact: true }).waitFor();
    assert.equal(await page.locator('.loading-screen .particle').count(), 15);
    release();
    await expectText(page.getByTestId('latest-response'), 'The gates of hell are momentarily sealed...');
    await page.context().close();
  });

  it('home defaults every missing number to 0', async () => {
    const page = await openPage();
    await page.route('**/api/public/stats', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: '{"stats":{},"memorable_quotes":[]}' }),
    );
    await page.goto('/');
    for (const id of ['posted-sins', 'pending-sins', 'engagement-total', 'engagement-likes', 'total-mentions', 'mentions-24h']) {
      await expectText(page.getByTestId(id), '0');
    }
    await expectText(page.getByTestId('success-rate'), '0%');
    await expectText(page.getByTestId('response-rate'), '0%');
    await expectText(page.getByTestId('response-rate-24h'), '0%');
    await expectText(page.getByTestId('engagement-since'), 'Eternal');
    await page.context().close();
  });

  it('about page', async () => {
    const page = await openPage({ width: 360, height: 700 });
    await page.goto('/');
    await page.getByRole('link', { name: 'About', exact: true }).click();
    await expectPath(page, '/about');
    for (const title of ['Advanced Intelligence', 'Complex Network Understanding', 'Dynamic Interactions', 'Community Catalyst']) {
      await page.getByRole('heading', { name: title, exact: true }).waitFor();
    }
    await page.getByRole('heading', { name: 'The Infernal Manifesto' }).waitFor();
    await page.getByRole('heading', { name: 'Summoning Guidelines' }).waitFor();
    const bar = page.getByRole('progressbar', { name: 'Reading progress' });
    assert.equal(await bar.getAttribute('aria-valuenow'), '0');
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await eventually(async () => assert.equal(await bar.getAttribute('aria-valuenow'), '100'));
    assert.equal(await page.getByRole('link', { name: /^Follow @infernal_ai/ }).getAttribute('target'), '_blank');
    await page.getByRole('link', { name: 'Back to the Gates' }).click();
    await expectPath(page, '/');
    await page.context().close();
  });

  it('logs terminal pages through threads and shows one', async () => {
    const page = await openPage();
    await page.goto('/');
    await page.getByRole('link', { name: "Access Hell's Backroom", exact: true }).click();
    await expectPath(page, '/backroom');

    await expectText(page.getByTestId('terminal-status'), 'INFERNAL CONNECTION ESTABLISHED');
    const items = page.getByTestId('thread-item');
    await expectCount(items, 15);
    await page.getByText('SELECT A CONSCIOUSNESS STREAM', { exact: true }).waitFor();
    await expectText(page.getByTestId('logs-page'), 'PAGE 1');
    const prev = page.getByRole('button', { name: 'PREVIOUS', exact: true });
    const next = page.getByRole('button', { name: 'NEXT', exact: true });
    assert.equal(await prev.isDisabled(), true);

    // Newest first: the profile broadcast, its preview cut at 100 characters.
    const broadcast = stack.db(`SELECT proposed_response FROM posts WHERE source = 'profile' AND status = 'posted'`);
    assert.ok(broadcast.length > 100);
    await expectText(items.first().locator('.thread-preview'), `${broadcast.slice(0, 100)}...`);
    await expectText(items.first().locator('.thread-type'), 'CONSCIOUSNESS BROADCAST');

    await next.click();
    await expectText(page.getByTestId('logs-page'), 'PAGE 2');
    await expectCount(items, 4);
    assert.equal(await next.isDisabled(), true);
    await page.getByText('Mortal musing number 16:', { exact: false }).waitFor();
    await prev.click();
    await expectText(page.getByTestId('logs-page'), 'PAGE 1');
    await expectCount(items, 15);

    // The shared mention conversation holds two messages.
    await items.filter({ hasText: 'is it ok to skip the gym today?' }).click();
    const detail = page.getByTestId('thread-detail');
    await detail.waitFor();
    await expectCount(detail.getByTestId('log-message'), 2);
    await detail.getByText('Skipping is a sin. I approve.', { exact: true }).waitFor();
    await detail.getByText('Patience, mortal. Eternity is long.', { exact: true }).waitFor();
    await detail.getByText('@lazy_lou', { exact: false }).first().waitFor();
    assert.equal(await items.filter({ hasText: 'is it ok to skip the gym today?' }).getAttribute('aria-pressed'), 'true');

    await page.getByRole('link', { name: 'Return to the Gates' }).click();
    await expectPath(page, '/');
    await page.context().close();
  });

  it('logs terminal reports errors, bad data, emptiness and bad dates', async () => {
    const cases = [
      { status: 500, body: '{"error":"boom"}', expect: ['INFERNAL ERROR: 500', 'INFERNAL CONNECTION DISRUPTED'] },
      { status: 200, body: '{"nothing":"here"}', expect: ['Invalid data structure', 'INFERNAL CONNECTION DISRUPTED'] },
      { status: 200, body: '{"threads":[],"pagination":{"hasMore":false}}', expect: ['NO LOGS AVAILABLE'] },
      {
        status: 200,
        body: JSON.stringify({ threads: [{ id: 1, latestTimestamp: 'not-a-date', proposed_response: 'lost in time' }] }),
        expect: ['TEMPORAL ANOMALY', 'lost in time'],
      },
    ];
    for (const c of cases) {
      const page = await openPage();
      await page.route('**/api/public/logs*', (route) =>
        route.fulfill({ status: c.status, contentType: 'application/json', body: c.body }),
      );
      await page.goto('/backroom');
      for (const t of c.expect) await page.getByText(t, { exact: true }).first().waitFor();
      const status = await text(page.getByTestId('terminal-status'));
      assert.equal(
        status,
        c.expect[1] === 'INFERNAL CONNECTION DISRUPTED' ? 'CONNECTION TO HELL TEMPORARILY DISRUPTED' : 'INFERNAL CONNECTION ESTABLISHED',
      );
      if (status !== 'INFERNAL CONNECTION ESTABLISHED') assert.equal(await page.getByTestId('thread-item').count(), 0);
      await page.context().close();
    }
  });

  it('redirects /login, /dashboard and unknown paths home, replacing history', async () => {
    const page = await openPage();
    for (const path of ['/login', '/dashboard', '/no/such/page']) {
      await page.goto('/about');
      await expectPath(page, '/about');
      await page.goto(path);
      await expectPath(page, '/');
      await page.getByTestId('posted-sins').waitFor();
      await page.goBack();
      await expectPath(page, '/about');
    }
    await page.context().close();
  });

  it('the dashboard without a token sends to the login', async () => {
    const page = await openPage();
    await page.goto('/diaries666op/dashboard');
    await expectPath(page, '/diaries666op/login');
    await page.getByRole('heading', { name: 'Infernal Bot Admin' }).waitFor();
    await page.context().close();
  });
});

noUncaughtErrors(pageErrors);
