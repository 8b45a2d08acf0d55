import { afterEach, describe, expect, it } from 'vitest';
import type { AlertMessage } from '../domain/alerts/message.js';
import { renderAlertEmail } from './email.js';
import { fetchChannelHttp } from './http.js';
import { createMemoryOutbox, renderForOutbox } from './outbox.js';
import { createChannels } from './registry.js';
import { createSlackChannel, renderSlackAlert } from './slack.js';
import { renderAlertSms, smsSegments } from './sms.js';
import { renderTeamsAlert } from './teams.js';
import { type LoopbackReceiver, startLoopbackReceiver } from './testing.js';

const receivers: LoopbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

function alert(over: Partial<AlertMessage> = {}): AlertMessage {
  return {
    kind: 'alert',
    accountId: '7d0c5e2a-1111-4a53-9d55-2a8f1f2c7e11',
    ruleId: '0b9e6f6c-3f0a-4a53-9d55-2a8f1f2c7e11',
    ruleName: 'Billing <receiver> & co',
    test: false,
    count: 12,
    firstAt: new Date('2026-11-25T10:00:00Z'),
    lastAt: new Date('2026-11-25T10:01:30Z'),
    threshold: { count: 5, window: '10m' },
    events: ['action.failed'],
    lines: [
      'Action "charge <b>" (a1) to billing.example.com failed after 3 attempts: HTTP 500',
      'Action "charge 2" (a2) to billing.example.com failed after 3 attempts: HTTP 503',
    ],
    ...over,
  };
}

describe('alert messages on each channel', () => {
  it('email: the count, the window, each sampled event, the rest counted; HTML escaped', () => {
    const mail = renderAlertEmail(alert());
    expect(mail.subject).toBe('Alert: Billing <receiver> & co');
    expect(mail.text).toContain(
      '12 events (action.failed) between 2026-11-25 10:00:00 UTC and 2026-11-25 10:01:30 UTC.',
    );
    expect(mail.text).toContain('The rule alerts at 5 or more within 10m.');
    expect(mail.text).toContain('- Action "charge <b>" (a1)');
    expect(mail.text).toContain('Showing 2 of 12 events.');
    expect(mail.html).toContain('charge &lt;b&gt;');
    expect(mail.html).not.toContain('<b>"');
    expect(renderAlertEmail(alert({ test: true })).subject).toBe('Test alert: Billing <receiver> & co');
  });

  it('sms: at most three segments, whatever the sample holds', () => {
    const long = alert({ lines: Array.from({ length: 5 }, (_, i) => `Action ${i} ${'x'.repeat(200)}`) });
    const text = renderAlertSms(long);
    expect(smsSegments(text)).toBeLessThanOrEqual(3);
    expect(text.startsWith('Alert: Billing')).toBe(true);
    expect(renderAlertSms(alert({ count: 1, lines: ['one'] }))).toContain('one');
  });

  it('slack and teams: no buttons, the author’s text never read as markup', () => {
    const slack = renderSlackAlert(alert());
    expect(JSON.stringify(slack)).toContain('charge &lt;b&gt;');
    expect(JSON.stringify(slack)).not.toContain('"actions"');
    const teams = JSON.stringify(renderTeamsAlert(alert()));
    expect(teams).toContain('TextRun');
    expect(teams).not.toContain('Action.OpenUrl');
    expect(teams).toContain('Alert: Billing <receiver> & co');
  });

  it('outbox: everything an operator needs to pass it on, and no response link', () => {
    const rendered = renderForOutbox('email', alert(), { channel: 'email', email: 'oncall@example.com' });
    expect(rendered).toContain('Kind: alert');
    expect(rendered).toContain('To: oncall@example.com');
    expect(rendered).toContain('Alert rule: 0b9e6f6c-3f0a-4a53-9d55-2a8f1f2c7e11');
    expect(rendered).not.toContain('Response link');
  });

  it('an unconfigured channel keeps the alert in the outbox; the Slack adapter posts it', async () => {
    const outbox = createMemoryOutbox();
    const lines: string[] = [];
    const log = { info: (_: object, m: string) => lines.push(m), warn: () => {}, error: () => {} };
    const channels = createChannels({}, { outbox, logger: log });
    const kept = await channels.email.send({ channel: 'email', email: 'oncall@example.com' }, alert());
    expect(kept).toEqual({ ok: true, via: 'outbox' });
    expect(outbox.entries[0]?.message.kind).toBe('alert');
    expect(lines).toContain('alert kept in the outbox');

    const slack = await startLoopbackReceiver(() => ({ status: 200, body: 'ok' }));
    receivers.push(slack);
    const sent = await createSlackChannel({ http: fetchChannelHttp() }).send(
      { channel: 'slack', webhookUrl: `${slack.origin}/services/T/B/X` },
      alert(),
    );
    expect(sent).toEqual({ ok: true, via: 'provider' });
    const payload = JSON.parse(slack.requests[0]!.body.toString()) as { text: string };
    expect(payload.text).toContain('Alert: Billing &lt;receiver&gt; &amp; co');
  });
});
