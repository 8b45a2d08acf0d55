import { grantChoices } from './fields.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  COMMENT_MAX_LENGTH,
  renderErrorPage,
  renderGonePage,
  renderResponsePage,
  renderResultPage,
  type ResponsePageModel,
} from './render.js';
import {
  formatRelative,
  formatSize,
  formatUtc,
  PAGE_CSP,
  PAGE_HEADERS,
  PAGE_STYLE_HASH,
  safeHref,
} from './document.js';
import { PAGE_STYLE } from './styles.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const EVIL = `<script>alert(1)</script>"'&`;
// As the renderer escapes: `<`, `&` and `"` everywhere (a `>` or `'` can open nothing once `<` and `"` are gone).
const EVIL_ESCAPED = `&lt;script>alert(1)&lt;/script>&quot;'&amp;`;

function model(overrides: Partial<ResponsePageModel> = {}): ResponsePageModel {
  return {
    title: 'Deploy v2.4 to production',
    message: 'Please approve the deploy.\nIt includes the billing fix.',
    recipientName: 'Ada Lovelace',
    formAction: '/r/tok_abc',
    buttons: { confirm: 'Approve', decline: 'Reject' },
    snooze: {
      allowed: true,
      remaining: 3,
      choices: [
        { value: '15m', label: '15 minutes' },
        { value: '1h', label: '1 hour' },
      ],
    },
    attachments: [
      { name: 'plan.pdf', url: '/r/tok_abc/attachments/0', size: 245_760, contentType: 'application/pdf' },
    ],
    expiresAt: new Date('2026-11-28T12:00:00Z'),
    now: NOW,
    ...overrides,
  };
}

/** The inline stylesheet is the one place a literal `<` may not be user data, so strip it before scanning. */
function withoutStyle(html: string): string {
  return html.replace(/<style>[\s\S]*?<\/style>/, '');
}

describe('renderResponsePage', () => {
  it('is an HTML5 document with language, charset, viewport, one h1 and a main landmark', () => {
    const html = renderResponsePage(model());
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<meta charset="utf-8"/>');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
    expect(html.match(/<main>/g)).toHaveLength(1);
    expect(html).toContain('<h1>Deploy v2.4 to production</h1>');
  });

  it('loads nothing: no script, no external stylesheet, image or font, no style attributes', () => {
    const html = renderResponsePage(model());
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/url\(/i);
    expect(html).not.toMatch(/@import/i);
  });

  it('escapes every dynamic value', () => {
    const html = renderResponsePage(
      model({
        title: EVIL,
        message: EVIL,
        recipientName: EVIL,
        formAction: `/r/x"><script>alert(1)</script>`,
        buttons: { confirm: EVIL, decline: EVIL },
        snooze: { allowed: true, remaining: 2, choices: [{ value: `1h"><script>`, label: EVIL }] },
        attachments: [{ name: EVIL, url: `/a?x="><script>`, size: 10, contentType: EVIL }],
        suggestedDecision: 'confirm',
      }),
    );
    const body = withoutStyle(html);
    expect(body).not.toContain('<script');
    expect(body).not.toMatch(/"><script/);
    // title (twice: <title> and <h1>), message, recipient (twice), both buttons, the callout, the option,
    // the attachment's name and content type.
    expect(body.split(EVIL_ESCAPED).length - 1).toBeGreaterThanOrEqual(10);
    expect(body).toContain('action="/r/x&quot;>&lt;script>alert(1)&lt;/script>"');
    expect(body).toContain('value="1h&quot;>&lt;script>"');
    expect(body).toContain('href="/a?x=&quot;>&lt;script>"');
  });

  it('keeps the message newlines as text (pre-wrap), not markup', () => {
    const html = renderResponsePage(model({ message: 'line 1\nline 2 & <b>3</b>' }));
    expect(html).toContain('<div class="message">line 1\nline 2 &amp; &lt;b>3&lt;/b></div>');
    expect(PAGE_STYLE).toMatch(/\.message \{[^}]*white-space: pre-wrap/);
  });

  it('has real submit buttons with the given labels and a labelled comment box with maxlength 500', () => {
    const html = renderResponsePage(model());
    expect(html).toContain('<form method="post" action="/r/tok_abc">');
    expect(html).toContain(
      '<button type="submit" name="decision" value="confirm" class="confirm">Approve</button>',
    );
    expect(html).toContain(
      '<button type="submit" name="decision" value="decline" class="decline">Reject</button>',
    );
    expect(html).toContain('<label for="comment">');
    expect(html).toMatch(
      /<textarea id="comment" name="comment" maxlength="500"[^>]*aria-describedby="comment-hint"/,
    );
    expect(html).toContain('id="comment-hint">Up to 500 characters.');
    expect(COMMENT_MAX_LENGTH).toBe(500);
  });

  it('offers snooze with the choices and the snoozes left when allowed', () => {
    const html = renderResponsePage(model());
    expect(html).toContain('<select id="snooze_for" name="snooze_for"');
    expect(html).toContain('<option value="15m">15 minutes</option>');
    expect(html).toContain(
      '<button type="submit" name="decision" value="snooze" class="secondary">Snooze</button>',
    );
    expect(html).toContain('3 snoozes left.');
    expect(renderResponsePage(model({ snooze: { ...model().snooze, remaining: 1 } }))).toContain(
      '1 snooze left.',
    );
  });

  it.each([
    ['not allowed', { allowed: false, remaining: 3 }],
    ['allowed but none left', { allowed: true, remaining: 0 }],
  ])('hides snooze when %s', (_name, snooze) => {
    const html = renderResponsePage(model({ snooze: { ...model().snooze, ...snooze } }));
    expect(html).not.toContain('snooze_for');
    expect(html).not.toContain('value="snooze"');
    expect(html).not.toContain('snoozes left');
  });

  it('shows the expiry in UTC with a relative hint', () => {
    const html = renderResponsePage(model());
    expect(html).toContain('Answer by <time datetime="2026-11-28T12:00:00.000Z">2026-11-28 12:00 UTC</time>');
    expect(html).toContain('(in 7 days)');
  });

  it('lists attachments as links with sizes, and never links a javascript: URL', () => {
    const html = renderResponsePage(
      model({
        attachments: [
          {
            name: 'plan.pdf',
            url: '/r/tok_abc/attachments/0',
            size: 245_760,
            contentType: 'application/pdf',
          },
          { name: 'evil.html', url: 'javascript:alert(1)', size: 12, contentType: 'text/html' },
        ],
      }),
    );
    expect(html).toContain('Attachments (2)');
    expect(html).toContain(
      '<a class="file" href="/r/tok_abc/attachments/0" rel="noopener noreferrer">plan.pdf</a>',
    );
    expect(html).toContain('application/pdf · 240 KB');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<span class="file">evil.html</span>');
    expect(renderResponsePage(model({ attachments: [] }))).not.toContain('Attachments');
  });

  it('shows progress in all_required mode', () => {
    expect(renderResponsePage(model({ progress: { responded: 1, total: 3 } }))).toContain(
      '1 of 3 recipients have answered',
    );
    expect(renderResponsePage(model())).not.toContain('recipients have answered');
  });

  it('pre-focuses the suggested button without any script', () => {
    const html = renderResponsePage(model({ suggestedDecision: 'decline' }));
    expect(html).toContain('value="decline" class="decline" autofocus>Reject</button>');
    expect(html).not.toMatch(/value="confirm"[^>]*autofocus/);
    expect(html).toContain('press <strong>Reject</strong> below');
    expect(renderResponsePage(model())).not.toContain('autofocus');
  });
});

describe('PAGE_CSP', () => {
  it('allows exactly the inline stylesheet by its sha256 hash', () => {
    const expected = `sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}`;
    expect(PAGE_STYLE_HASH).toBe(expected);
    expect(PAGE_CSP).toBe(
      `default-src 'none'; style-src '${expected}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
    expect(PAGE_HEADERS['content-security-policy']).toBe(PAGE_CSP);
    expect(PAGE_HEADERS['referrer-policy']).toBe('no-referrer');
  });

  it('matches the style element of every page byte for byte', () => {
    const pages = [
      renderResponsePage(model()),
      renderResultPage({ title: 't', outcome: 'confirmed' }),
      renderGonePage({ reason: 'expired' }),
      renderErrorPage({ status: 422, message: 'm' }),
    ];
    for (const html of pages) {
      const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
      expect(styles).toHaveLength(1);
      expect(`sha256-${createHash('sha256').update(styles[0]!).digest('base64')}`).toBe(PAGE_STYLE_HASH);
    }
  });
});

describe('renderResultPage', () => {
  it.each([
    ['confirmed', 'Confirmed'],
    ['declined', 'Declined'],
    ['snoozed', 'Snoozed'],
  ] as const)('announces %s in a status region', (outcome, heading) => {
    const html = renderResultPage({ title: 'Deploy', outcome, now: NOW });
    expect(html).toContain('<div role="status">');
    expect(html).toContain(`<h1>${heading}</h1>`);
    expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
  });

  it('says when a snoozed request comes back and escapes title and detail', () => {
    const html = renderResultPage({
      title: EVIL,
      outcome: 'snoozed',
      detail: EVIL,
      snoozedUntil: new Date('2026-11-21T13:00:00Z'),
      now: NOW,
    });
    expect(withoutStyle(html)).not.toContain('<script');
    expect(html).toContain('2026-11-21 13:00 UTC</time> (in 1 hour)');
    expect(html.split(EVIL_ESCAPED).length - 1).toBe(3); // <title>, the quote, the detail
  });
});

describe('renderGonePage and renderErrorPage', () => {
  it.each(['expired', 'closed', 'answered', 'unknown'] as const)('explains a %s link', (reason) => {
    const html = renderGonePage({ reason, title: EVIL });
    expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
    expect(withoutStyle(html)).not.toContain('<script');
    expect(html).toContain(EVIL_ESCAPED);
  });

  it('shows the error with a way back', () => {
    const html = renderErrorPage({ status: 422, message: EVIL, backUrl: '/r/tok' });
    expect(html).toContain('<div role="alert">');
    expect(html).toContain(`<p class="meta">${EVIL_ESCAPED}</p>`);
    expect(html).toContain('<a href="/r/tok">Back to the request</a>');
    expect(renderErrorPage({ status: 429, message: 'slow down' })).toContain('Too many attempts');
    expect(renderErrorPage({ status: 422, message: 'x', backUrl: 'javascript:alert(1)' })).not.toContain(
      'javascript:',
    );
  });
});

describe('formatting helpers', () => {
  it('formats times, sizes and links', () => {
    expect(formatUtc(new Date('2026-01-02T03:04:59.999Z'))).toBe('2026-01-02 03:04 UTC');
    expect(formatRelative(new Date('2026-11-21T12:00:30Z'), NOW)).toBe('in less than a minute');
    expect(formatRelative(new Date('2026-11-21T12:45:00Z'), NOW)).toBe('in 45 minutes');
    expect(formatRelative(new Date('2026-11-22T12:00:00Z'), NOW)).toBe('in 24 hours');
    expect(formatRelative(new Date('2026-11-28T12:00:00Z'), NOW)).toBe('in 7 days');
    expect(formatRelative(new Date('2026-11-21T10:00:00Z'), NOW)).toBe('2 hours ago');
    expect(formatSize(0)).toBe('0 bytes');
    expect(formatSize(1)).toBe('1 byte');
    expect(formatSize(1536)).toBe('1.5 KB');
    expect(formatSize(5 * 1024 * 1024)).toBe('5 MB');
    expect(formatSize(123 * 1024 * 1024)).toBe('123 MB');
    expect(safeHref('/r/t/attachments/0')).toBe('/r/t/attachments/0');
    expect(safeHref('https://files.example.com/a.pdf')).toBe('https://files.example.com/a.pdf');
    expect(safeHref('//evil.example.com/x')).toBeNull();
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,hi')).toBeNull();
  });
});

describe('the typed answer and the standing grant on the page', () => {
  it('prefills each field with its default; only a confirm is checked by the browser', () => {
    const html = renderResponsePage(
      model({
        fields: [
          {
            name: 'amount',
            label: 'Amount',
            type: 'integer',
            required: true,
            default: 120,
            min: 1,
            max: 500,
          },
          { name: 'urgent', type: 'boolean', default: true },
          { name: 'tier', type: 'enum', options: ['gold', 'silver'], default: 'silver' },
          { name: 'note', type: 'text', default: '<b>hi</b>' },
        ],
        grant: { key: 'refund:42', choices: grantChoices('1d', 86_400_000) },
      }),
    );
    expect(html).toMatch(
      /<input id="field-amount" name="values.amount" required type="number" inputmode="numeric" step="1" min="1" max="500" value="120"/,
    );
    expect(html).toContain('<input type="hidden" name="values.urgent" value="false"/>');
    expect(html).toMatch(/name="values.urgent" value="true" checked/);
    expect(html).toContain('<option value="silver" selected>silver</option>');
    expect(html).toContain('&lt;b>hi&lt;/b></textarea>');
    expect(html).toMatch(/value="decline" class="decline" formnovalidate/);
    expect(html).not.toMatch(/value="confirm"[^>]*formnovalidate/);
    // An empty attribute is the empty value: no grant.
    expect(html).toContain('<option value>No: ask me every time</option>');
    expect(html).toContain('<option value="1d">1 day</option>');
    expect(html).not.toContain('value="7d"');
  });

  it('offers the usual grant durations below the maximum, and the maximum as written', () => {
    expect(grantChoices('90m', 90 * 60_000).map((c) => c.value)).toEqual(['15m', '1h', '90m']);
  });
});
