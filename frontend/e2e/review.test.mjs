// Browser tests of the admin's review: the login, the four tabs and their
// cards, every decision on a draft, the settings, autopilot and persona
// panels, the sessions; then every page's screenshot. Headless Chromium
// against the real web binary, a seeded Postgres and Redis (see stack.mjs
// and seed.sql); the tests of this file run in order on one database.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import twitterText from 'twitter-text';
import {
  adminToken,
  eventually,
  expectCount,
  expectPath,
  expectSelectedTab,
  expectText,
  login,
  newPage,
  openSection,
  pathOf,
  searchOf,
  text,
} from './admin.mjs';
import { ADMIN_USERNAME, SCREENSHOTS, fileStack, noUncaughtErrors } from './stack.mjs';

const { stack, pageErrors } = fileStack();

/** A new page in a fresh context (own storage and cookies). */
const openPage = (options) => newPage(stack, (err) => pageErrors.push(err), options);

function postId(ref) {
  return Number(stack.db(`SELECT id FROM posts WHERE original_post_id = '${ref}'`));
}

function statusOf(id) {
  return stack.db(`SELECT status FROM posts WHERE id = ${id}`);
}

describe('admin', () => {
  let page;

  before(async () => {
    // No worker sends here, so every approval waits its turn: caps far above what these tests
    // approve keep them about the review, not the send caps (which the settings test sets itself).
    stack.db(`INSERT INTO settings (id, caps) VALUES (true, '{"sends_per_3h": 1000, "sends_per_day": 1000}')
      ON CONFLICT (id) DO UPDATE SET caps = excluded.caps`);
    page = await openPage();
  });

  after(async () => {
    await page?.context().close();
  });

  it('login needs both fields, and a failure shows Invalid credentials', async () => {
    await page.goto('/diaries666op/login');
    const user = page.getByLabel('Username');
    const pass = page.getByLabel('Password');
    assert.equal(await user.getAttribute('required'), '');
    assert.equal(await pass.getAttribute('required'), '');
    let posted = 0;
    page.on('request', (req) => {
      if (req.url().endsWith('/api/auth/login')) posted++;
    });
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    assert.equal(await user.evaluate((el) => el.validity.valueMissing), true);
    assert.equal(posted, 0, 'the form was sent with empty fields');

    await user.fill(ADMIN_USERNAME);
    await pass.fill('not-the-password');
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await expectText(page.getByRole('alert'), 'Invalid credentials');
    assert.equal(pathOf(page), '/diaries666op/login');
    assert.equal(await page.evaluate(() => localStorage.getItem('token')), null);
  });

  it('login stores the token and opens the dashboard', async () => {
    await login(page);
    assert.ok(await page.evaluate(() => localStorage.getItem('token')));
    await expectText(page.getByTestId('stat-pending'), '18');
    await expectText(page.getByTestId('stat-posted'), '20');
    await expectText(page.getByTestId('stat-rejected'), '2');
    await expectText(page.getByTestId('stat-mentions'), '3');
    const tabs = page.getByRole('tab');
    await expectCount(tabs, 4);
    assert.deepEqual(await tabs.allTextContents(), ['Pending Sins', 'Mentions', 'Profile Tweets', 'Targeted Users']);
    assert.equal(await tabs.first().getAttribute('aria-selected'), 'true');
    await page.getByRole('button', { name: 'Refresh', exact: true }).waitFor();
    const ops = page.getByRole('link', { name: /^Ops/ });
    assert.equal(await ops.getAttribute('href'), '/diaries666op/queues/');
    assert.equal(await ops.getAttribute('target'), '_blank');
    const res = await page.request.get('/diaries666op/queues/', { headers: { Accept: 'text/html' }, maxRedirects: 0 });
    assert.equal(res.status(), 200, 'the queue dashboard opens for the logged-in admin');
  });

  it('pending tab lists ten cards a page with every field, and sorts', async () => {
    const cards = page.getByTestId('review-card');
    await expectCount(cards, 10);
    await expectText(page.getByTestId('page-status'), 'Page 1 of 2');
    for (const name of ['First', 'Previous', 'Next', 'Last']) {
      await page.getByRole('button', { name, exact: true }).waitFor();
    }
    const first = cards.first();
    await expectText(first.getByTestId('original-text'), 'Pending mortal post 1: my coffee went cold again');
    await first.getByRole('heading', { name: 'Coffee Mortal 1' }).waitFor();
    await first.getByText('@coffee_1', { exact: true }).waitFor();
    await first.getByText('gluttony', { exact: true }).waitFor();
    // Seeded 10 minutes before the run began; the public tests before this one may take
    // a minute or more on a loaded machine, so the card may already say 11m or 12m.
    await first.getByText(/^1\dm ago$/).waitFor();
    await first.getByRole('link', { name: /View attached media/ }).waitFor();
    await expectText(first.getByTestId('likes'), '3');
    await expectText(first.getByTestId('retweets'), '1');
    await expectText(first.getByTestId('replies'), '1');
    await expectText(first.getByTestId('engagement'), '7');
    // The card's internal ids are folded away under "Ids".
    assert.equal(await first.getByText('conv-pending-1', { exact: true }).isVisible(), false);
    await first.getByText('Ids', { exact: true }).click();
    await first.getByText('conv-pending-1', { exact: true }).waitFor();
    const draft = stack.db(`SELECT proposed_response FROM posts WHERE original_post_id = 'conv-pending-1'`);
    assert.equal(await first.getByLabel('Proposed response').inputValue(), draft);
    await expectText(first.getByTestId('char-counter'), `${twitterText.parseTweet(draft).weightedLength} / 280 characters`);
    // The judge's verdict and the persona version (seed: conv-pending-1 a 4 in version 2,
    // conv-pending-2 unjudged and before versions, conv-pending-3 a 2 by a model in version 1).
    await expectText(first.getByTestId('review-score'), 'Review 4/5');
    await expectText(first.getByTestId('review-reason'), 'Sharp, on topic and kind to the weak (judged by the offline judge).');
    await expectText(first.getByTestId('persona-version'), 'persona v2');
    const second = cards.nth(1);
    await second.getByTestId('original-text').waitFor();
    assert.equal(await second.getByTestId('review-score').count(), 0, 'an unjudged draft shows no review');
    assert.equal(await second.getByTestId('review-reason').count(), 0);
    assert.equal(await second.getByTestId('persona-version').count(), 0, 'a draft before versions shows none');
    const third = cards.nth(2);
    await expectText(third.getByTestId('review-score'), 'Review 2/5');
    assert.match(await third.getByTestId('review-score').getAttribute('class'), /\bis-low\b/);
    await expectText(third.getByTestId('review-reason'), 'Repeats the post instead of answering it (judged by judge-model-mini).');
    await expectText(third.getByTestId('persona-version'), 'persona v1');

    const sort = page.getByLabel('Sort By');
    assert.deepEqual(await sort.locator('option').allTextContents(), [
      'Most Recent',
      'Highest Engagement',
      'Most Likes',
      'Most Retweets',
      'Most Replies',
    ]);
    await sort.selectOption('likes');
    await expectText(cards.first().getByTestId('original-text'), 'Pending mortal post 12: my coffee went cold again');
    await sort.selectOption('retweets');
    await expectText(cards.first().getByTestId('original-text'), 'Pending mortal post 5: my coffee went cold again');

    // Changing sort goes back to page 1.
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await expectText(page.getByTestId('page-status'), 'Page 2 of 2');
    await sort.selectOption('date');
    await expectText(page.getByTestId('page-status'), 'Page 1 of 2');
    await expectText(cards.first().getByTestId('original-text'), 'Pending mortal post 1: my coffee went cold again');
  });

  it('reload keeps the tab, page and sort; invalid values in the URL fall back to the defaults', async () => {
    const cards = page.getByTestId('review-card');
    const sort = page.getByLabel('Sort By');
    await sort.selectOption('likes');
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await expectText(page.getByTestId('page-status'), 'Page 2 of 2');
    assert.equal(searchOf(page), '?page=2&sort=likes');
    await page.reload();
    await expectText(page.getByTestId('page-status'), 'Page 2 of 2');
    assert.equal(await sort.inputValue(), 'likes');
    await expectSelectedTab(page, 'Pending Sins');
    // By likes, drafts 2 and 1 (the least liked) are on page 2.
    await expectCount(cards, 2);
    await expectText(cards.first().getByTestId('original-text'), 'Pending mortal post 2: my coffee went cold again');

    await page.getByRole('tab', { name: 'Mentions' }).click();
    await expectCount(cards, 3);
    assert.equal(searchOf(page), '?tab=mentions&sort=likes');
    await page.reload();
    await expectSelectedTab(page, 'Mentions');
    await expectCount(cards, 3);
    assert.equal(await sort.inputValue(), 'likes');

    await page.goto('/diaries666op/dashboard?tab=hell&page=-1&sort=chaos');
    await expectSelectedTab(page, 'Pending Sins');
    await expectCount(cards, 10);
    await expectText(page.getByTestId('page-status'), 'Page 1 of 2');
    assert.equal(await sort.inputValue(), 'date');
    await expectText(cards.first().getByTestId('original-text'), 'Pending mortal post 1: my coffee went cold again');
  });

  it('the back button restores the previous tab and page', async () => {
    const cards = page.getByTestId('review-card');
    await page.goto('/diaries666op/dashboard');
    await expectCount(cards, 10);
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await expectText(page.getByTestId('page-status'), 'Page 2 of 2');
    await page.getByRole('tab', { name: 'Profile Tweets' }).click();
    await expectCount(cards, 2);
    assert.equal(searchOf(page), '?tab=profile');

    await page.goBack();
    await expectSelectedTab(page, 'Pending Sins');
    await expectText(page.getByTestId('page-status'), 'Page 2 of 2');
    await expectCount(cards, 2);
    await page.goForward();
    await expectSelectedTab(page, 'Profile Tweets');
    await page.getByRole('button', { name: 'Generate New Profile Tweet', exact: true }).waitFor();
    await page.goBack();
    await page.goBack();
    await expectSelectedTab(page, 'Pending Sins');
    await expectText(page.getByTestId('page-status'), 'Page 1 of 2');
    await expectCount(cards, 10);
    assert.equal(searchOf(page), '');
  });

  it('approve, with an edited response, and the last card of a page goes back one page', async () => {
    const cards = page.getByTestId('review-card');
    await page.getByRole('button', { name: 'Last', exact: true }).click();
    await expectText(page.getByTestId('page-status'), 'Page 2 of 2');
    await expectCount(cards, 2);

    const id11 = postId('conv-pending-11');
    const id12 = postId('conv-pending-12');
    const card11 = page.locator(`[data-testid="review-card"][data-post-id="${id11}"]`);
    const edited = 'Edited in the fire.';
    await card11.getByLabel('Proposed response').fill(edited);
    await expectText(card11.getByTestId('char-counter'), '19 / 280 characters');
    await card11.getByRole('button', { name: 'Approve', exact: true }).click();
    await expectText(page.getByTestId('banner-success'), 'Post approved and response sent successfully!');
    await expectCount(card11, 0);
    await expectCount(cards, 1);
    assert.match(statusOf(id11), /^(approved|posted)$/);
    assert.equal(stack.db(`SELECT proposed_response FROM posts WHERE id = ${id11}`), edited);

    // The only card left on page 2: approving it goes back to page 1.
    await page.locator(`[data-testid="review-card"][data-post-id="${id12}"]`).getByRole('button', { name: 'Approve' }).click();
    await expectText(page.getByTestId('banner-success'), 'Post approved and response sent successfully!');
    await expectCount(cards, 10);
    await expectCount(page.getByTestId('pagination'), 0);
    assert.match(statusOf(id12), /^(approved|posted)$/);
    const draft12 = stack.db(`SELECT proposed_response FROM posts WHERE id = ${id12}`);
    assert.match(draft12, /^Draft reply 12:/, 'an unedited approval keeps the draft');
  });

  it('an approve the server refuses shows its message', async () => {
    const id = postId('conv-pending-1');
    stack.db(`UPDATE posts SET status = 'rejected', rejected_at = now() WHERE id = ${id}`);
    const card = page.locator(`[data-testid="review-card"][data-post-id="${id}"]`);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    const banner = await text(page.getByTestId('banner-error'));
    assert.match(banner, /^Failed to approve post: .+/);
    assert.equal(statusOf(id), 'rejected');
  });

  it('mentions tab: a too-long draft cannot be approved, and reject works', async () => {
    await page.getByRole('tab', { name: 'Mentions' }).click();
    // Changing tab clears the banners.
    await expectCount(page.getByTestId('banner-error'), 0);
    await expectCount(page.getByTestId('banner-success'), 0);
    const cards = page.getByTestId('review-card');
    await expectCount(cards, 3);

    const long = page.locator(`[data-testid="review-card"][data-post-id="${postId('mention-pending-long')}"]`);
    const tooLong = long.getByRole('button', { name: 'Response Too Long', exact: true });
    assert.equal(await tooLong.isDisabled(), true);
    await long.getByText("Response exceeds Twitter's limit", { exact: true }).waitFor();
    await expectText(long.getByTestId('char-counter'), '325 / 280 characters');
    assert.equal(await long.locator('.counter').getAttribute('data-level'), 'error');
    assert.equal(await long.getByRole('button', { name: 'Approve', exact: true }).count(), 0);

    // The counter follows an edit: 260 is a warning, 100 is normal and approvable.
    await long.getByLabel('Proposed response').fill('x'.repeat(260));
    await expectText(long.getByTestId('char-counter'), '260 / 280 characters');
    assert.equal(await long.locator('.counter').getAttribute('data-level'), 'warning');
    await long.getByLabel('Proposed response').fill('y'.repeat(100));
    assert.equal(await long.locator('.counter').getAttribute('data-level'), 'normal');
    assert.equal(await long.getByRole('button', { name: 'Approve', exact: true }).isDisabled(), false);
    await expectCount(long.getByText("Response exceeds Twitter's limit"), 0);
    await long.getByRole('button', { name: 'Undo edits' }).click();
    assert.equal(await long.getByRole('button', { name: 'Response Too Long' }).isDisabled(), true);

    const id = postId('mention-pending-1');
    await page.locator(`[data-testid="review-card"][data-post-id="${id}"]`).getByRole('button', { name: 'Reject' }).click();
    await expectText(page.getByTestId('banner-success'), 'Post rejected successfully');
    await expectCount(cards, 2);
    assert.equal(statusOf(id), 'rejected');
    await expectText(page.getByTestId('stat-mentions'), '2');
  });

  it('a card shows its conversation: the last two thread posts, the earlier ones behind a toggle, the quoted post and the note, as text', async () => {
    await page.getByRole('tab', { name: 'Mentions' }).click();
    const id = postId('mention-pending-old');
    const card = page.locator(`[data-testid="review-card"][data-post-id="${id}"]`);
    const thread = card.getByTestId('context-post');
    const hostile = '<script>window.hellfire = 1</script><b>Fourth</b>: <img src=x onerror="window.hellfire = 2">ask the oracle';
    const texts = () => thread.locator('.context-text').allTextContents();
    const handles = () => thread.locator('.context-handle').allTextContents();

    // The last two posts of the thread, oldest first, the parent last.
    await expectCount(thread, 2);
    assert.deepEqual(await texts(), ['Third: the intern was me.', hostile]);
    assert.deepEqual(await handles(), ['@thread_three', '@thread_four']);
    assert.deepEqual(await thread.evaluateAll((els) => els.map((el) => el.dataset.relation)), ['ancestor', 'parent']);
    assert.equal(await thread.first().locator('time').count(), 1);
    // The quoted post, and the note of what the draft could not see.
    const quoted = card.getByTestId('context-quoted');
    await expectText(quoted.locator('.context-text'), 'The quoted decree: Fridays are cancelled.');
    await expectText(quoted.locator('.context-handle'), '@decree_maker');
    await expectText(card.getByTestId('context-note'), 'The X budget is spent: drafted with the 2 posts already stored.');
    assert.equal(await card.getByTestId('context-failed').count(), 0);
    // The thread above the mortal's post, the quoted post below it.
    assert.deepEqual(
      await card.evaluate((el) => {
        const [t, o, q] = ['context-thread', 'original-text', 'context-quoted'].map((n) => el.querySelector(`[data-testid="${n}"]`));
        return [Boolean(t.compareDocumentPosition(o) & Node.DOCUMENT_POSITION_FOLLOWING), Boolean(o.compareDocumentPosition(q) & Node.DOCUMENT_POSITION_FOLLOWING)];
      }),
      [true, true],
    );

    // The earlier posts behind the toggle, in order.
    const toggle = card.getByRole('button', { name: 'Show 2 earlier posts', exact: true });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    await expectCount(thread, 4);
    assert.deepEqual(await texts(), [
      'Thread root: who broke the build on a Friday?',
      'Second: it was the intern. It is always the intern.',
      'Third: the intern was me.',
      hostile,
    ]);
    assert.deepEqual(await handles(), ['@thread_one', '@infernal_ai', '@thread_three', '@thread_four']);
    // The persona's own post in the thread is marked as such.
    assert.deepEqual(await thread.evaluateAll((els) => els.map((el) => el.dataset.relation)), ['ancestor', 'persona', 'ancestor', 'parent']);
    await expectText(thread.nth(1).locator('.badge-persona'), 'Persona');
    assert.equal(await card.locator('.badge-persona').count(), 1);
    const hide = card.getByRole('button', { name: 'Hide earlier posts', exact: true });
    assert.equal(await hide.getAttribute('aria-expanded'), 'true');
    await hide.click();
    await expectCount(thread, 2);

    // Markup in a post is text: no element of it, nothing of it ran.
    assert.equal(await card.locator('[data-testid="context-post"] :is(script, b, img)').count(), 0);
    assert.equal(await page.evaluate(() => window.hellfire), undefined);

    // The call itself: its contract, and a post with no conversation shows none of it.
    const token = await page.evaluate(() => localStorage.getItem('token'));
    const auth = { headers: { Authorization: `Bearer ${token}` } };
    const longId = postId('mention-pending-long');
    const res = await page.request.get(`/api/posts/${longId}/context`, auth);
    assert.equal(res.status(), 200);
    assert.deepEqual(await res.json(), { items: [], note: '' });
    assert.equal((await page.request.get(`/api/posts/${id}/context`)).status(), 401);
    assert.equal((await page.request.get('/api/posts/999999/context', auth)).status(), 404);
    const plain = page.locator(`[data-testid="review-card"][data-post-id="${longId}"]`);
    for (const part of ['context-thread', 'context-quoted', 'context-note', 'context-failed']) {
      assert.equal(await plain.getByTestId(part).count(), 0, `${part} on a post without a conversation`);
    }
  });

  it('profile tab generates a new profile tweet', async () => {
    assert.equal(await page.getByRole('button', { name: 'Generate New Profile Tweet' }).count(), 0);
    await page.getByRole('tab', { name: 'Profile Tweets' }).click();
    await expectCount(page.getByTestId('banner-success'), 0);
    await expectCount(page.getByTestId('review-card'), 2);
    const before = Number(stack.db(`SELECT count(*) FROM posts WHERE source = 'profile'`));
    await page.getByRole('button', { name: 'Generate New Profile Tweet', exact: true }).click();
    await expectText(page.getByTestId('banner-success'), 'New profile tweet generated!');
    assert.equal(Number(stack.db(`SELECT count(*) FROM posts WHERE source = 'profile'`)), before + 1);
  });

  it('targeted tab: reject the last one and see the empty message', async () => {
    await page.getByRole('tab', { name: 'Targeted Users' }).click();
    const cards = page.getByTestId('review-card');
    await expectCount(cards, 1);
    await cards.first().getByRole('heading', { name: 'Hustle Corp' }).waitFor();
    await cards.first().getByRole('button', { name: 'Reject' }).click();
    await expectText(page.getByTestId('banner-success'), 'Post rejected successfully');
    await expectText(page.getByTestId('empty-message'), 'No pending targeted posts');
    assert.equal(statusOf(postId('targeted-pending-1')), 'rejected');
  });

  it('a post whose send failed stays in its tab with the reason, and can be approved again', async () => {
    stack.db(`INSERT INTO posts (platform, source, status, original_post_id, original_post_text, original_post_user,
      author_username, category, proposed_response, approved_at, send_started_at, error)
      VALUES ('sandbox', 'targeted', 'failed', 'targeted-failed-1', 'Buy my course', 'Hustle Corp', 'hustle_corp', 'greed',
      'Your course is a pyramid with extra steps.', now(), now(),
      'platform: 403 Forbidden: You are not allowed to create a Tweet with duplicate content.')`);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const card = page.getByTestId('review-card');
    await expectCount(card, 1);
    await expectText(card.first().getByTestId('failure'), 'Sending failed: platform: 403 Forbidden: You are not allowed to create a Tweet with duplicate content. Edit and approve to try again, or reject.');
    await card.first().getByLabel('Proposed response').fill('A pyramid, but make it eternal.');
    await card.first().getByRole('button', { name: /Approve/ }).click();
    await expectText(page.getByTestId('banner-success'), 'Post approved and response sent successfully!');
    await expectText(page.getByTestId('empty-message'), 'No pending targeted posts');
    assert.equal(statusOf(postId('targeted-failed-1')), 'approved');
  });

  it('the Spend panel shows what the persona costs; a hand-posted reply gets Post on X, then Mark as posted', async () => {
    stack.db(`INSERT INTO x_calls (at, day, endpoint, kind, resources, usd) VALUES
      (now(), (now() AT TIME ZONE 'UTC')::date, 'GET /2/tweets/search/recent', 'post_read', 3, 0.015),
      (now(), (now() AT TIME ZONE 'UTC')::date, 'GET /2/tweets/search/recent', 'post_read', 0, 0),
      (now(), (now() AT TIME ZONE 'UTC')::date, 'POST /2/tweets', 'post_create', 1, 0.015)`);
    stack.db(`INSERT INTO model_usage (at, day, model, prompt_tokens, completion_tokens, usd)
      VALUES (now(), (now() AT TIME ZONE 'UTC')::date, 'gpt-4o-mini', 8000, 1333, 0.002)`);
    const text = 'Hustle harder, mortal. Or do not.';
    stack.db(`INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
      original_post_user, author_username, category, proposed_response, reply_route)
      VALUES ('sandbox', 'targeted', 'pending', '1800000000000000042', '1800000000000000042', 'Grind season never ends',
      'Hustle Corp', 'hustle_corp', 'greed', '${text}', 'manual')`);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();

    await openSection(page, 'Spend');
    await expectPath(page, '/diaries666op/spend');
    const panel = page.getByTestId('spend-panel');
    await panel.getByRole('heading', { name: 'Spend' }).waitFor();
    await expectText(panel.getByTestId('spend-today'), '$0.030 / $0.002');
    await expectText(panel.getByTestId('spend-month'), '$0.030 / $0.002');
    const sent3h = stack.db(`SELECT count(*) FROM posts WHERE send_started_at > now() - interval '3 hours'`);
    const sent24h = stack.db(`SELECT count(*) FROM posts WHERE send_started_at > now() - interval '24 hours'`);
    await expectText(panel.getByTestId('spend-sends'), `${sent3h} of 1000 / ${sent24h} of 1000`);
    const rows = panel.getByTestId('spend-by-endpoint').locator('tbody tr');
    await expectCount(rows, 2);
    assert.deepEqual(await rows.first().locator('td').allTextContents(), ['GET /2/tweets/search/recent', '2', '3', '$0.015']);
    await panel.getByTestId('spend-by-model').getByText('gpt-4o-mini', { exact: true }).waitFor();
    await panel.getByTestId('spend-windows').getByText('No window announced', { exact: true }).waitFor();
    await panel.getByTestId('spend-backlog').getByText('Nothing left for later', { exact: true }).waitFor();
    // The operator pauses every platform from here, as /pause does in Telegram.
    const ops = page.getByTestId('spend-ops');
    await ops.getByRole('button', { name: 'Pause scanning and sending', exact: true }).click();
    await expectText(ops.getByRole('status'), 'Scanning and sending are paused.');
    assert.equal(stack.db(`SELECT reason FROM ops_pause WHERE platform = ''`), 'paused from the admin');
    // Back to the review as it was left: the same tab, which says so, and Resume there lifts it.
    await page.goBack();
    await expectPath(page, '/diaries666op/dashboard');
    const pausedBanner = page.getByTestId('banner-paused');
    await expectText(pausedBanner.locator('span'), 'Scanning and sending are paused: paused from the admin.');
    await pausedBanner.getByRole('button', { name: 'Resume', exact: true }).click();
    await expectCount(page.getByTestId('banner-paused'), 0);
    assert.equal(stack.db(`SELECT count(*) FROM ops_pause`), '0');

    // A timeline whose request the platform rejected waits 6 hours, and the dashboard says until when.
    const until = new Date(Date.now() + 6 * 3600 * 1000).toISOString();
    stack.db(`INSERT INTO timeline_pauses (platform, timeline, reason, since, until)
      VALUES ('sandbox', 'mentions', 'the platform rejects the request', now(), '${until}')`);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const at = await page.evaluate((u) => new Date(u).toLocaleString(), until);
    await expectText(
      page.getByTestId('banner-timeline-paused'),
      `Scans of sandbox mentions are paused until ${at}: the platform rejects the request. The other timelines go on.`,
    );
    stack.db(`DELETE FROM timeline_pauses WHERE platform = 'sandbox' AND timeline = 'mentions'`);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expectCount(page.getByTestId('banner-timeline-paused'), 0);

    const card = page.getByTestId('review-card');
    await expectCount(card, 1);
    await card.first().getByTestId('route-manual').waitFor();
    await expectText(card.first().getByTestId('send-cost'), 'Posted by hand: no API cost');
    assert.equal(await card.first().getByTestId('post-on-x').count(), 0, 'Post on X shows before approval');
    await card.first().getByRole('button', { name: 'Approve', exact: true }).click();
    await expectText(page.getByTestId('banner-success'), 'Post approved for hand-posting: use "Post on X", then "Mark as posted".');
    const postOnX = card.first().getByRole('link', { name: /^Post on X/ });
    await postOnX.waitFor();
    assert.equal(
      await postOnX.getAttribute('href'),
      `https://x.com/intent/post?in_reply_to=1800000000000000042&text=${encodeURIComponent(text)}`,
    );
    assert.equal(await postOnX.getAttribute('target'), '_blank');
    assert.equal(statusOf(postId('1800000000000000042')), 'awaiting_manual');

    await card.first().getByRole('button', { name: 'Mark as posted', exact: true }).click();
    await expectText(page.getByTestId('banner-success'), 'Post marked as posted');
    await expectText(page.getByTestId('empty-message'), 'No pending targeted posts');
    assert.equal(statusOf(postId('1800000000000000042')), 'posted');
  });

  /** How many regenerate tasks wait in the queue (no worker runs in this stack). */
  async function queuedRegenerations() {
    const [reply] = await stack.redis([['LLEN', 'asynq:{high}:pending']]);
    return Number(reply.replace(/^:/, ''));
  }

  it('regenerate asks for a new draft with an instruction, and History lists every version', async () => {
    await page.getByRole('tab', { name: 'Mentions' }).click();
    const id = postId('mention-pending-old');
    const card = page.locator(`[data-testid="review-card"][data-post-id="${id}"]`);
    const old = 'Three days late, and still not the latest of my sins.';

    await card.getByRole('button', { name: 'History', exact: true }).click();
    const versions = card.getByTestId('version');
    await expectCount(versions, 1);
    await expectText(versions.first().locator('.badge-origin'), 'Writer');
    await expectText(versions.first().locator('.review-version-text'), old);

    const instruction = card.getByLabel('Instruction for a new draft (optional)');
    const regenerate = card.getByRole('button', { name: 'Regenerate', exact: true });
    await instruction.fill('x'.repeat(201));
    await card.getByText('Keep the instruction to 200 characters', { exact: true }).waitFor();
    assert.equal(await regenerate.isDisabled(), true);

    await instruction.fill('shorter');
    const before = await queuedRegenerations();
    await regenerate.click();
    // The web tier queued the task and waits for a worker: play the worker's part.
    await eventually(async () => assert.equal(await queuedRegenerations(), before + 1));
    const fresh = 'Late, and shorter.';
    stack.db(`BEGIN;
      INSERT INTO post_versions (post_id, text, origin, at) SELECT id, proposed_response, 'writer', updated_at FROM posts WHERE id = ${id};
      INSERT INTO post_versions (post_id, text, origin, instruction) VALUES (${id}, '${fresh}', 'regenerate', 'shorter');
      UPDATE posts SET proposed_response = '${fresh}', updated_at = now() WHERE id = ${id};
      COMMIT;`);
    await expectText(page.getByTestId('banner-success'), 'A new draft rose from the pit');
    await eventually(async () => assert.equal(await card.getByLabel('Proposed response').inputValue(), fresh));
    assert.equal(await instruction.inputValue(), '', 'the instruction is cleared once used');
    await expectCount(versions, 2);
    await expectText(versions.nth(1).locator('.badge-origin'), 'Regenerated');
    await expectText(versions.nth(1).locator('.review-version-wish'), '\u201cshorter\u201d');
    await expectText(versions.nth(1).locator('.review-version-text'), fresh);
    await card.getByRole('button', { name: 'Hide history', exact: true }).click();
    await expectCount(versions, 0);

    // A post judged meanwhile cannot be regenerated: the server's reason is shown.
    stack.db(`UPDATE posts SET status = 'rejected', rejected_at = now() WHERE id = ${id}`);
    await regenerate.click();
    await expectText(page.getByTestId('banner-error'), 'Failed to regenerate draft: it is rejected, not pending');
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expectCount(card, 0);
  });

  it('bulk review: select cards by keyboard and by click, approve them together, each result reported', async () => {
    await page.getByRole('tab', { name: 'Pending Sins' }).click();
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const cards = page.getByTestId('review-card');
    await expectCount(cards, 9);
    const [a, b, c] = [2, 3, 4].map((i) => postId(`conv-pending-${i}`));
    const cardOf = (id) => page.locator(`[data-testid="review-card"][data-post-id="${id}"]`);
    const count = page.getByTestId('selected-count');
    assert.equal(await page.getByRole('button', { name: 'Approve selected' }).isDisabled(), true);

    // x selects the focused card, j moves to the next, Space selects it; a click selects the third.
    await cardOf(a).focus();
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-post-id')), String(b));
    await page.keyboard.press(' ');
    await cardOf(c).getByRole('checkbox', { name: `Select post #${c}` }).check();
    await eventually(async () => assert.match(await text(count), /^3 selected/));
    // Typing in a field does not select.
    await cardOf(a).getByLabel('Proposed response').press('x');
    await eventually(async () => assert.match(await text(count), /^3 selected/));
    await cardOf(a).getByRole('button', { name: 'Undo edits' }).click();

    // One of them is judged elsewhere meanwhile: the others still go through.
    stack.db(`UPDATE posts SET status = 'rejected', rejected_at = now() WHERE id = ${b}`);
    await page.getByRole('button', { name: 'Approve selected', exact: true }).click();
    const banner = page.getByTestId('banner-error');
    assert.match(await text(banner), /^2 posts approved, 1 failed/);
    assert.deepEqual(await page.getByTestId('bulk-results').locator('li').allTextContents(), [
      `#${a}: approved`,
      `#${b}: failed: it is rejected, not pending`,
      `#${c}: approved`,
    ]);
    assert.match(statusOf(a), /^(approved|posted)$/);
    assert.match(statusOf(c), /^(approved|posted)$/);
    assert.equal(statusOf(b), 'rejected');
    await expectCount(cards, 6);
    await eventually(async () => assert.match(await text(count), /^0 selected/));

    // Select all on the page, then none.
    const all = page.getByRole('checkbox', { name: 'Select all on this page' });
    await all.check();
    await eventually(async () => assert.match(await text(count), /^6 selected/));
    await all.uncheck();
    await eventually(async () => assert.match(await text(count), /^0 selected/));
  });

  it('settings: targets, topics and blocklists are edited, saved and kept; a bad value shows the error beside its field', async () => {
    await openSection(page, 'Settings');
    await expectPath(page, '/diaries666op/settings');
    // No worker ran the Telegram channel here: the settings say how to link it.
    await eventually(async () => assert.match(await text(page.getByTestId('telegram-link')), /Not linked: set TELEGRAM_BOT_TOKEN/));
    const panel = page.getByTestId('settings-panel');
    await panel.getByRole('heading', { name: 'Targets and topics' }).waitFor();
    const targets = panel.getByLabel('Targeted accounts');
    const topics = panel.getByLabel('Search topics');
    const authors = panel.getByLabel('Blocked authors');
    const phrases = panel.getByLabel('Blocked phrases');
    const perDay = panel.getByLabel('Sends per day');
    const depth = panel.getByLabel('Context depth');
    await targets.waitFor();
    assert.equal(await perDay.inputValue(), '1000');
    assert.equal(await depth.inputValue(), '5', 'a cap left out shows its default');

    await targets.fill('@Sinner_One\nsinner_two\n\nsinner_one');
    await topics.fill('monday\ncold brew');
    await authors.fill('spammer');
    await phrases.fill('scam coin\nfree money');
    await depth.fill('8');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    await expectText(panel.getByTestId('settings-saved'), 'Settings saved: the next scans use them');
    // Shown as stored: handles without @, lower-cased, once.
    await eventually(async () => assert.equal(await targets.inputValue(), 'sinner_one\nsinner_two'));
    assert.equal(stack.db(`SELECT array_to_string(search_topics, '|') FROM settings`), 'monday|cold brew');
    assert.equal(stack.db(`SELECT string_agg(phrase, '|' ORDER BY phrase) FROM blocked_phrases`), 'free money|scam coin');
    assert.equal(await panel.getByTestId('settings-accounts-target_usernames').count(), 0, 'no id known yet');
    // The worker looked a target up: its id shows beside the list.
    stack.db(`INSERT INTO targets (platform, username, user_id) VALUES ('sandbox', 'sinner_one', '4242')
      ON CONFLICT (platform, username) DO UPDATE SET user_id = excluded.user_id`);

    await page.reload();
    await panel.getByText('Targets and topics', { exact: true }).click();
    await eventually(async () => assert.equal(await targets.inputValue(), 'sinner_one\nsinner_two'));
    assert.equal(await topics.inputValue(), 'monday\ncold brew');
    assert.equal(await authors.inputValue(), 'spammer');
    await expectText(panel.getByTestId('settings-accounts-target_usernames'), 'sinner_one: id 4242');
    assert.equal(await phrases.inputValue(), 'scam coin\nfree money');
    assert.equal(await depth.inputValue(), '8');
    assert.equal(stack.db(`SELECT caps->>'context_depth' FROM settings`), '8');

    // The context depth runs 1 to 20: the server's reason shows beside it.
    await depth.fill('21');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    assert.match(await text(panel.getByTestId('settings-error-caps.context_depth')), /^caps\.context_depth: /);
    assert.equal(await depth.getAttribute('aria-invalid'), 'true');
    assert.equal(stack.db(`SELECT caps->>'context_depth' FROM settings`), '8', 'a refused depth changed nothing');
    await depth.fill('8');

    // The minimum review score sits with the caps, 0 (off) to 5, refused beside it above.
    const minScore = panel.getByLabel('Minimum review score');
    assert.equal(await minScore.inputValue(), '0', 'off unless set');
    await minScore.fill('6');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    assert.match(await text(panel.getByTestId('settings-error-caps.min_review_score')), /^caps\.min_review_score: 6 /);
    assert.equal(await minScore.getAttribute('aria-invalid'), 'true');
    await minScore.fill('3');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    await expectText(panel.getByTestId('settings-saved'), 'Settings saved: the next scans use them');
    assert.equal(stack.db(`SELECT caps->>'min_review_score' FROM settings`), '3');
    await minScore.fill('0');

    await targets.fill('sinner_one\nnot a handle!');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    const error = panel.getByTestId('settings-error-target_usernames');
    assert.match(await text(error), /^target_usernames\[1\]: "not a handle!" is not a handle/);
    assert.equal(await targets.getAttribute('aria-invalid'), 'true');
    assert.equal(await targets.getAttribute('aria-describedby'), await error.getAttribute('id'));
    assert.equal(await panel.getByTestId('settings-saved').count(), 0);
    assert.equal(stack.db(`SELECT array_to_string(target_usernames, '|') FROM settings`), 'sinner_one|sinner_two', 'a refused save changed nothing');

    await perDay.fill('5');
    await panel.getByLabel('Sends per 3 hours').fill('9');
    await targets.fill('sinner_one');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    await expectText(panel.getByTestId('settings-error-caps.sends_per_3h'), 'caps.sends_per_3h: 9 is more than sends_per_day (5)');
    assert.equal(await panel.getByTestId('settings-error-target_usernames').count(), 0, 'the old error stays after a new attempt');

    // Caps the approvals waiting already fill: the next approval says it is queued.
    await perDay.fill('1');
    await panel.getByLabel('Sends per 3 hours').fill('1');
    await panel.getByRole('button', { name: 'Save Settings', exact: true }).click();
    await expectText(panel.getByTestId('settings-saved'), 'Settings saved: the next scans use them');
    assert.equal(stack.db(`SELECT array_to_string(target_usernames, '|') FROM settings`), 'sinner_one');
    assert.equal(stack.db(`SELECT caps->>'sends_per_day' FROM settings`), '1');
    await openSection(page, 'Review');
    await page.getByRole('tab', { name: 'Pending Sins' }).click();
    const card = page.getByTestId('review-card').first();
    const id = Number(await card.getAttribute('data-post-id'));
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await expectText(page.getByTestId('banner-success'), 'Post approved, queued: cap. It goes out in approval order when the send cap allows.');
    assert.equal(statusOf(id), 'approved');
    // After a reload the approval has left the tabs; it waits, held, in "Waiting to send".
    await page.reload();
    const waiting = page.getByTestId('queued-panel');
    await waiting.getByRole('button', { name: 'Show waiting posts', exact: true }).click();
    const held = waiting.locator(`[data-testid="queued-card"][data-post-id="${id}"]`);
    await expectText(held.getByTestId('queued-note'), 'Approved, queued: cap: it goes out in approval order when the send cap allows.');
    stack.db(`UPDATE settings SET caps = '{"sends_per_3h": 1000, "sends_per_day": 1000}'`);
  });

  it('autopilot: an auto-approval waits in "Waiting to send" counting down, explained, and Cancel puts it back to review', { timeout: 60_000 }, async () => {
    const id = Number(stack.db(`SELECT id FROM posts WHERE status = 'pending' ORDER BY id LIMIT 1`));
    // As the worker's autopilot approves: send_after ahead, the decision with its rule.
    stack.db(`UPDATE posts SET status = 'approved', approved_at = now(), send_after = now() + interval '10 minutes' WHERE id = ${id}`);
    stack.db(`INSERT INTO post_decisions (post_id, action, by, draft_version, detail)
      VALUES (${id}, 'approve', 'autopilot', 1, '{"summary": "Auto-approved: trusted author @x, review 5/5"}')`);
    // Run alone (--test-name-pattern), the page has not signed in yet.
    if (pathOf(page) === '/diaries666op/dashboard') await page.reload();
    else await login(page);
    const waiting = page.getByTestId('queued-panel');
    await waiting.getByRole('button', { name: 'Show waiting posts', exact: true }).click();
    const auto = waiting.locator(`[data-testid="queued-card"][data-post-id="${id}"]`);
    await eventually(async () => assert.match(await text(auto.getByTestId('auto-posting-countdown')), /^Auto-posting in (10:00|9:[0-5]\d)$/));
    await expectText(auto.getByTestId('auto-approved'), 'Auto-approved: trusted author @x, review 5/5');
    await auto.getByRole('button', { name: 'Cancel', exact: true }).click();
    await eventually(async () => assert.equal(statusOf(id), 'pending'));
    assert.equal(stack.db(`SELECT send_after IS NULL FROM posts WHERE id = ${id}`), 't');
    await expectCount(waiting.locator(`[data-testid="queued-card"][data-post-id="${id}"]`), 0);

    // The rules are edited in the Settings section's Autopilot panel: a bad value names its field, a good one is stored.
    await openSection(page, 'Settings');
    const panel = page.getByTestId('autopilot-panel');
    await panel.locator('summary').click();
    await panel.getByLabel('Enabled').check();
    await panel.getByLabel('Trusted authors').fill('@Old_Friend\n\nneighbour');
    await panel.getByLabel('sloth').check();
    await panel.getByLabel('Grace before sending (seconds)').fill('3601');
    await panel.getByRole('button', { name: 'Save Autopilot', exact: true }).click();
    await expectText(panel.getByTestId('autopilot-error'), 'autopilot.grace_seconds: 3601 is out of range 0 to 3600');
    assert.notEqual(stack.db(`SELECT autopilot->>'enabled' FROM settings`), 'true', 'a refused save changed nothing');
    await panel.getByLabel('Grace before sending (seconds)').fill('90');
    await panel.getByRole('button', { name: 'Save Autopilot', exact: true }).click();
    await expectText(panel.getByTestId('autopilot-saved'), 'Autopilot saved: it applies to drafts from now on');
    assert.equal(stack.db(`SELECT autopilot->>'enabled' FROM settings`), 'true');
    assert.equal(stack.db(`SELECT autopilot->>'grace_seconds' FROM settings`), '90');
    assert.equal(stack.db(`SELECT array_to_string(ARRAY(SELECT jsonb_array_elements_text(autopilot->'authors')), '|') FROM settings`), 'old_friend|neighbour');
    assert.equal(stack.db(`SELECT autopilot->'categories'->>0 FROM settings`), 'sloth');
    // Off again: no worker runs here, but the tests after this one expect it off.
    await panel.getByLabel('Enabled').uncheck();
    await panel.getByRole('button', { name: 'Save Autopilot', exact: true }).click();
    await eventually(async () => assert.equal(stack.db(`SELECT autopilot->>'enabled' FROM settings`), 'false'));
  });

  it('persona: the panel loads the stored persona, errors show beside their field, a save adds a version, an old version is re-saved as new, a preview without a worker is a 503', { timeout: 120_000 }, async () => {
    const seedVoice = 'Dry, theatrical and brief. Mock the sin, never the sinner\'s pain. Never more than two sentences.';
    await openSection(page, 'Persona');
    await expectPath(page, '/diaries666op/persona');
    const panel = page.getByTestId('persona-panel');
    const name = panel.getByLabel('Name', { exact: true });
    const bio = panel.getByLabel('Bio', { exact: true });
    const voice = panel.getByLabel('Voice', { exact: true });
    const examples = panel.getByTestId('persona-examples-item');
    const topics = panel.getByTestId('persona-avoid_topics-item');
    const rows = panel.getByTestId('persona-version-row');
    const save = panel.getByRole('button', { name: 'Save Persona', exact: true });
    const maxVersion = () => stack.db(`SELECT max(version) FROM persona_versions`);

    // The stored persona (version 2 of the seed), every field.
    await eventually(async () => assert.equal(await name.inputValue(), 'Lucifer of the Timeline'));
    assert.equal(await bio.inputValue(), 'A voice from below, judging the feed since the first post.');
    assert.equal(await voice.inputValue(), seedVoice);
    await expectText(panel.getByTestId('voice-counter'), `${[...seedVoice].length} / 4000 characters`);
    await expectCount(examples, 2);
    assert.equal(await examples.nth(0).getByRole('textbox').inputValue(), 'Mondays were my idea.');
    assert.equal(await examples.nth(1).getByRole('textbox').inputValue(), 'Your sourdough rises. So will your hubris.');
    await expectText(examples.nth(0).getByTestId('example-counter'), '21 / 280 characters');
    await expectCount(topics, 2);
    assert.deepEqual(await topics.getByRole('textbox').evaluateAll((els) => els.map((el) => el.value)), ['grief', 'elections']);
    // Versions newest first, each with its time.
    await expectCount(rows, 2);
    assert.deepEqual(await rows.evaluateAll((els) => els.map((el) => el.dataset.version)), ['2', '1']);
    await expectText(rows.first().getByRole('button'), 'Version 2');
    assert.ok(await rows.first().locator('time').getAttribute('datetime'));

    // An empty voice: the server's error beside the field, nothing stored.
    await voice.fill('   ');
    await expectText(panel.getByTestId('voice-counter'), '3 / 4000 characters');
    await save.click();
    const voiceError = panel.getByTestId('persona-error-voice');
    assert.match(await text(voiceError), /^voice: .*empty/);
    assert.equal(await voice.getAttribute('aria-invalid'), 'true');
    assert.ok((await voice.getAttribute('aria-describedby')).split(' ').includes(await voiceError.getAttribute('id')));
    assert.equal(await panel.getByTestId('persona-saved').count(), 0);
    assert.equal(maxVersion(), '2', 'a refused save stored nothing');

    // An example over 280 weighted characters: its counter says so, the error shows beside it.
    await voice.fill('Drier than the Sahara, and twice as hot.');
    const long = 'x'.repeat(281);
    await examples.nth(1).getByRole('textbox').fill(long);
    await expectText(examples.nth(1).getByTestId('example-counter'), '281 / 280 characters');
    await save.click();
    await expectText(panel.getByTestId('persona-error-examples-1'), 'examples[1]: is 281 weighted characters, more than 280');
    assert.equal(await panel.getByTestId('persona-error-voice').count(), 0, 'the old error left with the new attempt');
    assert.equal(maxVersion(), '2');

    // A save adds a version, listed first.
    await examples.nth(1).getByRole('button', { name: 'Remove example 2' }).click();
    await expectCount(examples, 1);
    await panel.getByTestId('persona-add-avoid_topics').click();
    await expectCount(topics, 3);
    await topics.nth(2).getByRole('textbox').fill('  tax season ');
    await save.click();
    await expectText(panel.getByTestId('persona-saved'), 'Persona saved as version 3: the next drafts use it');
    await eventually(async () => assert.deepEqual(await rows.evaluateAll((els) => els.map((el) => el.dataset.version)), ['3', '2', '1']));
    assert.equal(
      stack.db(`SELECT voice || '|' || array_to_string(examples, ',') || '|' || array_to_string(avoid_topics, ',') FROM persona_versions WHERE version = 3`),
      'Drier than the Sahara, and twice as hot.|Mondays were my idea.|grief,elections,tax season',
    );
    assert.equal(await topics.nth(2).getByRole('textbox').inputValue(), 'tax season', 'the form shows the persona as stored');

    // Version 2 loads into the form and is saved again as version 4.
    await rows.filter({ hasText: 'Version 2' }).getByRole('button').click();
    await expectText(panel.getByTestId('persona-loaded'), 'Editing a copy of version 2: saving stores it as a new version.');
    assert.equal(await voice.inputValue(), seedVoice);
    await expectCount(examples, 2);
    await save.click();
    await expectText(panel.getByTestId('persona-saved'), 'Persona saved as version 4: the next drafts use it');
    assert.equal(stack.db(`SELECT voice FROM persona_versions WHERE version = 4`), seedVoice);
    assert.equal(await panel.getByTestId('persona-loaded').count(), 0);

    // Preview: the form's unsaved persona goes along; a bad field of it is named beside that field.
    const post = panel.getByLabel('A post to answer');
    const run = panel.getByRole('button', { name: 'Preview', exact: true });
    assert.equal(await run.isDisabled(), true, 'nothing to preview without a post');
    await post.fill('Why is my coffee always cold?');
    await voice.fill(' ');
    await run.click();
    assert.match(await text(panel.getByTestId('persona-error-voice')), /^persona\.voice: .*empty/);
    await voice.fill(seedVoice);
    // No worker runs in this stack: the task waits in the queue under a spinner, then the 503
    // is a message, the task is dropped, and no post was made.
    const posts = stack.db(`SELECT count(*) FROM posts`);
    const queued = await queuedRegenerations();
    await run.click();
    await expectText(panel.getByTestId('preview-waiting'), 'The writer is drafting a preview…');
    assert.equal(await run.isDisabled(), true, 'one preview at a time');
    await eventually(async () => assert.equal(await queuedRegenerations(), queued + 1));
    await eventually(
      async () => assert.equal(await text(panel.getByTestId('preview-timeout')), 'No preview: no worker wrote the preview in time; try again shortly.'),
      40_000,
    );
    assert.equal(await panel.getByTestId('preview-waiting').count(), 0);
    assert.equal(await queuedRegenerations(), queued, 'the unanswered preview left the queue');
    assert.equal(stack.db(`SELECT count(*) FROM posts`), posts, 'a preview makes no post');

    // Kept across a reload.
    await page.reload();
    await eventually(async () => assert.equal(await voice.inputValue(), seedVoice));
    await expectCount(rows, 4);
    assert.equal(await rows.first().getAttribute('data-version'), '4');
    await openSection(page, 'Review');
  });

  it('tabs work from the keyboard', async () => {
    const tab = page.getByRole('tab', { name: 'Targeted Users' });
    await tab.focus();
    await page.keyboard.press('Home');
    assert.equal(await page.getByRole('tab', { name: 'Pending Sins' }).getAttribute('aria-selected'), 'true');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByRole('tab', { name: 'Mentions' }).getAttribute('aria-selected'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Mentions');
  });

  it('a flagged draft shows its flags and is approved only with Approve anyway', async () => {
    stack.db(`INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
      original_post_user, author_username, category, proposed_response, flags)
      VALUES ('sandbox', 'targeted', 'pending', 'targeted-flagged-1', 'targeted-flagged-1', 'Buy my course', 'Hustle Corp',
      'hustle_corp', 'greed', 'Read the fine print at https://example.com/hell first.', '{link}'),
      ('sandbox', 'targeted', 'pending', 'targeted-clean-1', 'targeted-clean-1', 'Buy my other course', 'Hustle Corp',
      'hustle_corp', 'greed', 'A pyramid with extra steps.', '{}')`);
    await page.getByRole('tab', { name: 'Targeted Users' }).click();
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const flagged = page.locator(`[data-testid="review-card"][data-post-id="${postId('targeted-flagged-1')}"]`);
    await expectText(flagged.getByTestId('flag'), 'Link');
    await expectText(
      flagged.getByTestId('flags'),
      'The draft holds a link. Check it before it goes out: approving it takes \u201cApprove anyway\u201d.',
    );
    assert.equal(await flagged.getByRole('button', { name: 'Approve', exact: true }).count(), 0);
    await flagged.getByRole('button', { name: 'Approve anyway', exact: true }).click();
    await expectText(page.getByTestId('banner-success'), 'Post approved and response sent successfully!');
    assert.equal(statusOf(postId('targeted-flagged-1')), 'approved');

    // An edit the outbound check flags is refused, named, then approved anyway.
    const clean = page.locator(`[data-testid="review-card"][data-post-id="${postId('targeted-clean-1')}"]`);
    await expectCount(clean.getByTestId('flag'), 0);
    await clean.getByLabel('Proposed response').fill('Ask @stranger about [name], mortal.');
    await clean.getByRole('button', { name: 'Approve', exact: true }).click();
    await expectText(
      page.getByTestId('banner-error'),
      'Failed to approve post: the draft is flagged (foreign_mention, placeholder): approve anyway to send it',
    );
    assert.equal(statusOf(postId('targeted-clean-1')), 'pending');
    assert.deepEqual(await clean.getByTestId('flag').allTextContents(), ['Foreign mention', 'Placeholder']);
    await clean.getByRole('button', { name: 'Approve anyway', exact: true }).click();
    await expectText(page.getByTestId('banner-success'), 'Post approved and response sent successfully!');
    assert.equal(statusOf(postId('targeted-clean-1')), 'approved');
    assert.equal(stack.db(`SELECT proposed_response FROM posts WHERE original_post_id = 'targeted-clean-1'`), 'Ask @stranger about [name], mortal.');
    assert.equal(stack.db(`SELECT array_to_string(flags, ',') FROM posts WHERE original_post_id = 'targeted-clean-1'`), 'foreign_mention,placeholder');
  });

  it('the Skipped and failed view lists the reasons, drafts a post anyway and sends failed ones to their tab, beside the four tabs', async () => {
    stack.db(`INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
      original_post_user, author_username, created_at, skip_reason, error, proposed_response)
      VALUES ('sandbox', 'mention', 'skipped', 'mention-skipped-1', 'mention-skipped-1', '@infernal_ai leave me alone',
      'Quiet One', 'quiet_one', now() - interval '5 minutes', 'opt-out: "leave me alone"', '', ''),
      ('sandbox', 'conversation', 'skipped', 'conv-skipped-1', 'conv-skipped-1', 'bots talking to bots',
      'Other Bot', 'other_bot', now() - interval '10 minutes', 'cap: conversation (1 of 1)', '', ''),
      ('sandbox', 'targeted', 'failed', 'targeted-dead-1', 'targeted-dead-1', 'Buy my third course',
      'Hustle Corp', 'hustle_corp', now() - interval '7 minutes', '', 'send: 403 forbidden', 'No.')`);
    // A draft the judge scored below caps.min_review_score: skipped with its reason, its draft kept.
    stack.db(`INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
      original_post_user, author_username, created_at, skip_reason, error, proposed_response, category,
      persona_version, review_score, review_reason, review_by)
      VALUES ('sandbox', 'conversation', 'skipped', 'conv-lowscore-1', 'conv-lowscore-1', 'my cat ignores me',
      'Cat Person', 'cat_person', now() - interval '8 minutes', 'second opinion: 2/5: Repeats the post instead of answering it.',
      '', 'Your cat ignores you.', 'pride', 2, 2, 'Repeats the post instead of answering it.', 'offline')`);
    await expectCount(page.getByRole('tab'), 4);
    await expectCount(page.getByTestId('skipped-card'), 0);
    await expectText(page.getByTestId('skipped-panel').getByRole('heading'), 'Skipped and failed');
    const toggle = page.getByRole('button', { name: 'Show skipped and failed posts', exact: true });
    await toggle.click();
    const cards = page.getByTestId('skipped-card');
    const listed = Math.min(10, Number(stack.db(`SELECT count(*) FROM posts WHERE status IN ('skipped', 'failed')`)));
    await expectCount(cards, listed);
    const card = (originalID) => page.locator(`[data-testid="skipped-card"][data-post-id="${postId(originalID)}"]`);
    // Newest first: the failed post sits between the two skipped ones.
    assert.deepEqual(
      (await cards.getByTestId('skip-reason').allTextContents()).filter((r) => /leave me alone|1 of 1|403|second opinion/.test(r)),
      [
        'Skipped: opt-out: "leave me alone"',
        'Failed: send: 403 forbidden',
        'Skipped: second opinion: 2/5: Repeats the post instead of answering it.',
        'Skipped: cap: conversation (1 of 1)',
      ],
    );
    await expectText(card('targeted-dead-1').getByTestId('failed-hint'), 'Approve, edit, regenerate or reject it in its tab.');
    assert.equal(await card('targeted-dead-1').getByRole('button', { name: 'Draft anyway' }).count(), 0);
    const id = postId('conv-skipped-1');
    await card('conv-skipped-1').getByRole('button', { name: 'Draft anyway' }).click();
    await expectText(page.getByTestId('skipped-success'), 'Post sent back to drafting: its draft will appear in its tab');
    await expectCount(card('conv-skipped-1'), 0);
    assert.equal(statusOf(id), 'drafting');
    assert.equal(stack.db(`SELECT guarded_at IS NOT NULL FROM posts WHERE id = ${id}`), 't');
    // Drafting anyway a post the judge held back waives its review.
    const judged = postId('conv-lowscore-1');
    await card('conv-lowscore-1').getByRole('button', { name: 'Draft anyway' }).click();
    await expectCount(card('conv-lowscore-1'), 0);
    assert.equal(stack.db(`SELECT status || ' ' || review_waived FROM posts WHERE id = ${judged}`), 'drafting true');

    // A post no longer skipped (drafted anyway elsewhere) is refused with the server's reason.
    const other = postId('mention-skipped-1');
    stack.db(`UPDATE posts SET status = 'drafting' WHERE id = ${other}`);
    await card('mention-skipped-1').getByRole('button', { name: 'Draft anyway' }).click();
    await expectText(page.getByTestId('skipped-error'), 'Failed to draft post anyway: it is drafting, not skipped');
    // Judged (here by hand), the failed post leaves the lists the later tests count.
    stack.db(`UPDATE posts SET status = 'rejected' WHERE id = ${postId('targeted-dead-1')}`);
    await page.getByRole('button', { name: 'Hide skipped and failed posts', exact: true }).click();
    await expectCount(cards, 0);
  });

  it('logout revokes the session and returns to the login', async () => {
    const token = await page.evaluate(() => localStorage.getItem('token'));
    await page.getByRole('button', { name: 'Logout', exact: true }).click();
    await expectPath(page, '/diaries666op/login');
    assert.equal(await page.evaluate(() => localStorage.getItem('token')), null);
    const res = await fetch(`${stack.baseURL}/api/posts/stats`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 401, 'the old token still works after logout');
    await page.goto('/diaries666op/dashboard');
    await expectPath(page, '/diaries666op/login');
  });

  it('a token the server refuses is dropped, back to the login', async () => {
    await page.evaluate(() => localStorage.setItem('token', 'not-a-real-token'));
    await page.goto('/diaries666op/dashboard');
    await expectPath(page, '/diaries666op/login');
    assert.equal(await page.evaluate(() => localStorage.getItem('token')), null);
  });

  it('log out everywhere revokes the sessions of every browser', async () => {
    const statsWith = async (token) =>
      (await fetch(`${stack.baseURL}/api/posts/stats`, { headers: { Authorization: `Bearer ${token}` } })).status;
    // Another browser, signed in on its own.
    const other = await openPage();
    try {
      await login(other);
      const otherToken = await other.evaluate(() => localStorage.getItem('token'));
      await login(page);
      const token = await page.evaluate(() => localStorage.getItem('token'));
      assert.notEqual(token, otherToken);
      assert.equal(await statsWith(otherToken), 200, 'the other session works before');

      const button = page.getByRole('button', { name: 'Log out everywhere', exact: true });
      // Beside Logout, in the top bar.
      assert.equal(await button.evaluate((el) => el.closest('.admin-top-actions') !== null), true);
      await button.click();
      await expectPath(page, '/diaries666op/login');
      assert.equal(await page.evaluate(() => localStorage.getItem('token')), null);
      assert.equal(await statsWith(token), 401, 'this session still works after log out everywhere');
      assert.equal(await statsWith(otherToken), 401, 'the other browser still works after log out everywhere');
      // The other browser finds itself signed out at its next step.
      await other.getByRole('button', { name: 'Refresh', exact: true }).click();
      await expectPath(other, '/diaries666op/login');
    } finally {
      await other.context().close();
    }
  });
});

describe('screenshots', () => {
  it('every page at 360 px and 1280 px', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const token = await adminToken(stack);

    for (const width of [360, 1280]) {
      const page = await openPage({ width, height: width < 600 ? 780 : 900 });
      const shot = (name) => page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });

      await page.goto('/');
      await page.getByTestId('posted-sins').waitFor();
      await shot('home');
      await page.goto('/about');
      await page.getByRole('heading', { name: 'Community Catalyst' }).waitFor();
      await shot('about');
      await page.goto('/backroom');
      await page.getByTestId('thread-item').first().waitFor();
      await page.getByTestId('thread-item').nth(1).click();
      await page.getByTestId('thread-detail').waitFor();
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot('backroom');
      await page.goto('/diaries666op/login');
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Login', exact: true }).click();
      await page.getByRole('alert').waitFor();
      await shot('login');

      await page.evaluate((t) => localStorage.setItem('token', t), token);
      await page.goto('/diaries666op/dashboard');
      await page.getByTestId('review-card').first().waitFor();
      await shot('dashboard-pending');
      await page.screenshot({ path: join(SCREENSHOTS, `dashboard-pending-${width}-top.png`) });
      await page.getByRole('tab', { name: 'Mentions' }).click();
      await page.getByRole('button', { name: 'Response Too Long' }).waitFor();
      await shot('dashboard-mentions');
      await page.getByRole('tab', { name: 'Targeted Users' }).click();
      await page.getByTestId('empty-message').waitFor();
      await shot('dashboard-targeted');
      await page.context().close();
    }
  });

});

noUncaughtErrors(pageErrors);
