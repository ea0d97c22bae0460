// What the browser tests check on every admin screen, for the test files
// of e2e/: a page holding an admin token, waiting for a state,
// and the checks at a phone's and a desktop's width (no sideways scroll,
// 44 px targets, whole words, axe at 0).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './stack.mjs';

/** Retries fn until it stops throwing, or throws its last error after timeout ms. */
export async function eventually(fn, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The trimmed text of the locator's first element, once it is there. */
export async function text(locator) {
  await locator.first().waitFor();
  return (await locator.first().textContent()).trim();
}

export async function expectText(locator, expected) {
  await eventually(async () => assert.equal(await text(locator), expected));
}

export async function expectCount(locator, n) {
  await eventually(async () => assert.equal(await locator.count(), n));
}

/** A bearer token of a fresh admin session. */
export async function adminToken(stack) {
  const res = await fetch(`${stack.baseURL}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).token;
}

/**
 * A new page in a fresh context (own storage and cookies) of the stack's
 * browser, 1280 × 900 unless told; onError collects its uncaught errors.
 */
export async function newPage(stack, onError, { width = 1280, height = 900, ...options } = {}) {
  const context = await stack.browser.newContext({ baseURL: stack.baseURL, viewport: { width, height }, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => onError(`${page.url()}: ${err.message}`));
  return page;
}

/**
 * A fresh page (own storage) at width × height holding a valid admin
 * token; onError collects the page's uncaught errors.
 */
export async function adminPage(stack, width, height, onError) {
  const token = await adminToken(stack);
  const page = await newPage(stack, onError, { width, height });
  await page.addInitScript((t) => localStorage.setItem('token', t), token);
  return page;
}

/** The page's path. */
export function pathOf(page) {
  return new URL(page.url()).pathname;
}

export async function expectPath(page, path) {
  await eventually(async () => assert.equal(pathOf(page), path));
}

/** The page's query string, with its "?". */
export function searchOf(page) {
  return new URL(page.url()).search;
}

export async function expectSelectedTab(page, name) {
  await eventually(async () => assert.equal(await page.getByRole('tab', { name, exact: true }).getAttribute('aria-selected'), 'true'));
}

/** Opens an admin section from the navigation bar (a top bar, or a bottom bar on a phone). */
export async function openSection(page, label) {
  await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: label, exact: true }).click();
}

/** Signs in through the login form and waits for the dashboard. */
export async function login(page) {
  await page.goto('/diaries666op/login');
  await page.getByLabel('Username').fill(ADMIN_USERNAME);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expectPath(page, '/diaries666op/dashboard');
}

/**
 * The elements (of the admin's bar and page, or those scope selects) that
 * reach past the viewport's sides, none inside a scroll box.
 */
export function sidewaysOverflow(page, scope = '.admin-top *, .admin-page *') {
  return page.evaluate((sel) => {
    const width = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || el.closest('.visually-hidden')) continue;
      let scrolls = false;
      for (let p = el.parentElement; p && !scrolls; p = p.parentElement) scrolls = /auto|scroll/.test(getComputedStyle(p).overflowX);
      if (!scrolls && (r.right > width + 1 || r.left < -1)) {
        out.push(`${el.tagName.toLowerCase()}.${el.className}: ${Math.round(r.left)}..${Math.round(r.right)} of ${width}`);
      }
    }
    if (document.documentElement.scrollWidth > width) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    return out;
  }, scope);
}

/** The buttons, summaries, toggles and inputs of the page (selector) smaller than 44 px high, or narrower than 44 px. */
export function smallTargets(page, selector) {
  return page.evaluate((sel) => {
    const small = [];
    for (const el of document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.width < 44 || r.height < 44) small.push(`${el.tagName.toLowerCase()} ${el.textContent.trim().slice(0, 40)}: ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return small;
  }, selector);
}

/** axe-core's violations on the page (or in the element scope selects), one line each. */
export async function axeViolations(page, scope) {
  // Evaluated rather than added as a <script>: the page's Content-Security-Policy allows no inline script.
  await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(
    async (sel) => (await window.axe.run(sel ? document.querySelector(sel) : document, { resultTypes: ['violations'] })).violations,
    scope,
  );
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The words broken across lines in the elements selector names: each should wrap whole. */
export function brokenWords(page, selector) {
  return page.evaluate((sel) => {
    const broken = [];
    for (const el of document.querySelectorAll(sel)) {
      for (const node of el.childNodes) {
        if (node.nodeType !== Node.TEXT_NODE) continue;
        // Words, split where a line may break between them: at spaces and after hyphens.
        for (const m of node.textContent.matchAll(/[^\s-]+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
  }, selector);
}
