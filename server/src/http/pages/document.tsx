/**
 * What every approval page shares: the document around its content, the headers and CSP it is sent with (one inline
 * stylesheet allowed by its hash), and the small parts and formats the pages are written with (render.tsx).
 */
import { createHash } from 'node:crypto';
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { PAGE_STYLE } from './styles.js';

/** `sha256-<base64>` of the exact stylesheet text, computed once at load so the CSP can never drift from it. */
export const PAGE_STYLE_HASH = `sha256-${createHash('sha256').update(PAGE_STYLE, 'utf8').digest('base64')}`;

/**
 * The Content-Security-Policy of every page: nothing may load or run; only the inline stylesheet (by hash)
 * applies; forms post back to this origin; the page cannot be framed (clickjacking a confirm button).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src '${PAGE_STYLE_HASH}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Every header a page response should carry. `no-referrer` keeps the secret token in the URL from leaking
 * to attachment hosts; `no-store` keeps shared caches and the back button from replaying a page with a
 * token in it; `noindex` keeps links that end up public out of search engines.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-robots-tag': 'noindex, nofollow',
});

// ---------------------------------------------------------------------------------------------------------
// Formatting helpers

/** `2026-11-28 14:00 UTC`: unambiguous for recipients in any time zone. */
export function formatUtc(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/** "in 6 days", "in 3 hours", "in 12 minutes", "2 hours ago": the unit that reads naturally. */
export function formatRelative(target: Date, now: Date): string {
  const diff = target.getTime() - now.getTime();
  const abs = Math.abs(diff);
  if (abs < 60_000) return diff >= 0 ? 'in less than a minute' : 'less than a minute ago';
  const sign = diff < 0 ? -1 : 1;
  if (abs < 3_600_000) return RELATIVE.format(sign * Math.round(abs / 60_000), 'minute');
  if (abs < 48 * 3_600_000) return RELATIVE.format(sign * Math.round(abs / 3_600_000), 'hour');
  return RELATIVE.format(sign * Math.round(abs / 86_400_000), 'day');
}

/** `512 bytes`, `24 KB`, `1.4 MB` (binary multiples, one decimal below 10). */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return 'size unknown';
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = value < 10 ? value.toFixed(1).replace(/\.0$/, '') : String(Math.round(value));
  return `${shown} ${units[unit]}`;
}

/** An href only for same-site paths and http(s) URLs: a `javascript:` or `data:` link must never render. */
export function safeHref(url: string): string | null {
  if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function Time({ date }: { date: Date }) {
  return <time datetime={date.toISOString()}>{formatUtc(date)}</time>;
}

// Inline SVG icons: drawn with presentation attributes, which the CSP allows (style attributes it would not).
const ICONS = {
  check: <path d="M5 12.5l4.5 4.5L19 7.5" />,
  cross: <path d="M6.5 6.5l11 11M17.5 6.5l-11 11" />,
  clock: (
    <>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M12 7.5V12l3 2" />
    </>
  ),
  link: (
    <path d="M9.5 14.5l5-5M10.5 6.5l1.5-1.5a4 4 0 015.7 5.7L16.2 12M13.5 17.5L12 19a4 4 0 01-5.7-5.7L7.8 12" />
  ),
  alert: (
    <>
      <path d="M12 7.5v5.5M12 16.5v.5" />
      <circle cx="12" cy="12" r="8.5" />
    </>
  ),
} as const;

export function Badge({ icon, tone }: { icon: keyof typeof ICONS; tone: 'ok' | 'bad' | 'wait' }) {
  return (
    <div class={`badge ${tone}`}>
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        stroke-width="2.25"
        stroke-linecap="round"
        stroke-linejoin="round"
        aria-hidden="true"
        focusable="false"
      >
        {ICONS[icon]}
      </svg>
    </div>
  );
}

/** The whole document. The stylesheet is the one raw insertion: our own file, allowed by its hash. */
export function page(pageTitle: string, children: ComponentChildren): string {
  const html = renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="color-scheme" content="light dark" />
        <title>{pageTitle}</title>
        <style dangerouslySetInnerHTML={{ __html: PAGE_STYLE }} />
      </head>
      <body>
        <header class="brand">
          <p>sched</p>
        </header>
        <main>{children}</main>
      </body>
    </html>,
  );
  return `<!doctype html>\n${html}\n`;
}
