// The PKCE path in a real browser: Debian's Chromium, driven by playwright-core, goes through the
// single-page app example (examples/spa-pkce) served by its backend (examples/auth-code-backend):
// load the page, press "Connect bank", land on the sandbox's consent page, Approve, come back and
// see the backend's result. Then the same with Deny. A screenshot of every step goes to
// artifacts/browser/.
//
// Chromium runs headless with the flags that keep it off the network, and every request the page
// makes to a host other than 127.0.0.1 is refused and fails the test.
//
// Locally the test is skipped, with a message, when no Chromium is found; with REQUIRE_BROWSER=1
// (set by .ci/run) a missing browser fails it. OB_CHROMIUM=/path/to/chrome picks the binary.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executablePath, isLoopback, launchChromium, requireChromium } from './chromium.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const shots = `${root}artifacts/browser`;

requireChromium('the PKCE single-page app test');

/** Starts the example backend on a free port; resolves once it prints its address. */
function startBackend(): Promise<{ origin: string; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['examples/auth-code-backend/server.mjs', '--spa'], {
    cwd: root,
    env: { ...process.env, PORT: '0', OB_SANDBOX_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the backend did not start:\n${output}`)), 30_000);
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve({ origin: found[1]!, child, output: () => output });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the backend exited with ${code} before listening:\n${output}`));
    });
  });
}

describe.skipIf(!executablePath)('the PKCE single-page app in Chromium', () => {
  let backend: Awaited<ReturnType<typeof startBackend>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let authUrl: string;
  const offLoopback: string[] = [];
  const pageErrors: string[] = [];
  let step = 0;
  const screenshot = async (name: string) => {
    step++;
    await page.screenshot({ path: `${shots}/${String(step).padStart(2, '0')}-${name}.png`, fullPage: true });
  };

  beforeAll(async () => {
    rmSync(shots, { recursive: true, force: true }); // only this run's screenshots
    mkdirSync(shots, { recursive: true });
    backend = await startBackend();
    authUrl = ((await (await fetch(`${backend.origin}/config.json`)).json()) as { authUrl: string }).authUrl;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 900, height: 700 } });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (isLoopback(url)) return route.continue();
      offLoopback.push(url);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) await screenshot(`failed-${ctx.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  afterAll(async () => {
    await browser?.close();
    if (backend) {
      const exited = new Promise((resolve) => backend.child.once('exit', resolve));
      backend.child.kill('SIGTERM');
      await exited;
    }
  });

  it('approves: Connect bank → consent page → Approve → the backend result on the page', async () => {
    await page.goto(backend.origin);
    const connect = page.getByRole('button', { name: 'Connect bank' });
    await expect.poll(() => connect.isEnabled()).toBe(true);
    await screenshot('app');

    await connect.click();
    await page.waitForURL((url) => url.href.startsWith(`${authUrl}/oauth/authorize?`));
    const authorize = new URL(page.url());
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('scope')).toBe('cards.list');
    expect(authorize.searchParams.has('client_secret')).toBe(false);
    await expect.poll(() => page.locator('#app-name').textContent()).toBe('My Fintech');
    expect(await page.locator('#scopes').textContent()).toContain('cards.list');
    const pending = await page.evaluate(() => Object.keys(sessionStorage).length);
    expect(pending).toBe(0); // sessionStorage is per origin: the verifier stays with the app's origin
    await screenshot('consent');

    await page.locator('#approve').click();
    await page.waitForURL(`${backend.origin}/`);
    await page.locator('#result').waitFor({ state: 'visible' });
    expect(await page.locator('#status').textContent()).toBe('Your bank is connected.');
    expect(await page.locator('#summary').textContent()).toContain('cards.list');
    const rows = await page.locator('#cards tr').allTextContents();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toContain('Ada Obi');
    expect(page.url()).not.toContain('code='); // the single-use code left the address bar
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0); // the verifier was used and dropped
    await screenshot('connected');
  });

  it('denies: Connect bank → consent page → Deny → the app says so', async () => {
    await page.goto(backend.origin);
    const connect = page.getByRole('button', { name: 'Connect bank' });
    await expect.poll(() => connect.isEnabled()).toBe(true);
    await connect.click();
    await page.waitForURL((url) => url.href.startsWith(`${authUrl}/oauth/authorize?`));
    await page.locator('#deny').click();
    await page.waitForURL(`${backend.origin}/`);
    await expect.poll(() => page.locator('#status').textContent()).toBe('You declined: nothing was shared with My Fintech.');
    expect(await page.locator('#result').isHidden()).toBe(true);
    await screenshot('denied');
  });

  it('stays on loopback, with no error in the page', () => {
    expect(offLoopback).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
