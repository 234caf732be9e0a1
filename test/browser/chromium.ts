// Debian's Chromium for the browser tests, driven by playwright-core. Locally a test file is
// skipped, with a line saying why, when no Chromium is found; with REQUIRE_BROWSER=1 (set by
// .ci/run) a missing browser fails it. OB_CHROMIUM=/path/to/chrome picks the binary.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CANDIDATES = process.env.OB_CHROMIUM ? [process.env.OB_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium binary found, if any. */
export const executablePath = CANDIDATES.find((p) => existsSync(p));

/** Chromium's flags that keep it off the network and quiet (no first run, sync, updates, QUIC, GPU). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Says (or, with REQUIRE_BROWSER=1, throws) that `what` cannot run without a Chromium. */
export function requireChromium(what: string): void {
  if (executablePath) return;
  const message =
    `No Chromium found (looked for ${CANDIDATES.join(', ')}): ${what} is skipped. ` +
    "Install Debian's chromium (apt-get install -y chromium) or set OB_CHROMIUM to a Chrome or Chromium binary.";
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`${message.replace('is skipped', 'cannot run')} REQUIRE_BROWSER=1 makes this a failure.`);
  console.warn(message);
}

/** Chromium, headless, with the flags above. */
export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: executablePath!, headless: true, args: CHROMIUM_FLAGS });

/** True for the addresses a test page may reach: 127.0.0.1, and the browser's own pages. */
export const isLoopback = (url: string): boolean => {
  const { protocol, hostname } = new URL(url);
  return protocol === 'data:' || protocol === 'about:' || hostname === '127.0.0.1';
};
