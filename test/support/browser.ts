import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it); `SCHED_CHROMIUM_PATH` points elsewhere, e.g. on a Mac. */
const chromiumPath = process.env.SCHED_CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Launches headless chromium through playwright-core, which downloads no browser of its own. Without the
 * binary the browser tests skip on a developer's machine (null), but CI must not pass by skipping them:
 * with `CI=true` a missing browser throws.
 */
export async function launchBrowser(): Promise<Browser | null> {
  if (!existsSync(chromiumPath)) {
    if (process.env.CI === 'true') {
      throw new Error(
        `No chromium at ${chromiumPath}: CI runs the browser tests (install Debian's chromium)`,
      );
    }
    return null;
  }
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A CSP violation, as the page's `securitypolicyviolation` event or chromium's console reports it. */
export interface CspViolation {
  source: 'event' | 'console';
  text: string;
}

/**
 * Records CSP violations of every document the page loads. The listener is installed through the DevTools
 * protocol, which the page's own CSP does not govern, so a page that allows no script still reports.
 */
export async function watchCsp(page: Page): Promise<CspViolation[]> {
  const violations: CspViolation[] = [];
  await page.exposeBinding('__reportCspViolation', (_source, text: string) => {
    violations.push({ source: 'event', text });
  });
  // A string, not a function: test code is type-checked without the DOM library.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      window.__reportCspViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' (' + e.sourceFile + ':' + e.lineNumber + ')');
    });`,
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text()))
      violations.push({ source: 'console', text: message.text() });
  });
  return violations;
}
