import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryOutbox, renderForOutbox } from './outbox.js';
import { type ChannelConfig, type ChannelLogger, configuredChannels, createChannels } from './registry.js';
import { type LoopbackReceiver, sampleApprovalMessage, startLoopbackReceiver } from './testing.js';
import { CHANNELS } from './types.js';

function recordingLogger(): ChannelLogger & {
  lines: { level: string; obj: Record<string, unknown>; msg: string }[];
} {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  return {
    lines,
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
}

const receivers: LoopbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe('createChannels', () => {
  it('keeps messages of unconfigured channels in the outbox and warns once per channel', async () => {
    const outbox = createMemoryOutbox();
    const logger = recordingLogger();
    const channels = createChannels({}, { outbox, logger });

    expect(Object.keys(channels).sort()).toEqual([...CHANNELS].sort());
    expect(channels.email.configured).toBe(false);
    expect(channels.sms.configured).toBe(false);
    expect(channels.push.configured).toBe(false);
    expect(channels.slack.configured).toBe(true);
    expect(channels.teams.configured).toBe(true);

    const message = sampleApprovalMessage();
    const email = { channel: 'email', email: 'ada@example.test', name: 'Ada' } as const;
    expect(await channels.email.send(email, message)).toEqual({ ok: true, via: 'outbox' });
    expect(await channels.email.send(email, { ...message, kind: 'reminder' })).toEqual({
      ok: true,
      via: 'outbox',
    });
    const sms = { channel: 'sms', phone: '+15551234567' } as const;
    expect(await channels.sms.send(sms, message)).toEqual({ ok: true, via: 'outbox' });

    expect(outbox.entries.map((e) => [e.channel, e.message.kind])).toEqual([
      ['email', 'request'],
      ['email', 'reminder'],
      ['sms', 'request'],
    ]);
    const first = outbox.entries[0] ?? expect.unreachable();
    expect(first.target).toEqual(email);
    expect(first.message).toBe(message);
    expect(first.rendered).toBe(renderForOutbox('email', message, email));
    expect(first.rendered).toContain('Approval needed: Deploy release 4.2');
    expect(first.rendered).toContain('To: Ada <ada@example.test>');
    expect(first.rendered).toContain(`Response link: ${message.responseUrl}`);
    expect(first.rendered).toContain('It touches <script>alert(1)</script> & billing.');
    expect(outbox.entries[2]?.rendered).toContain('To: +15551234567');

    const warns = logger.lines.filter((l) => l.level === 'warn');
    expect(warns.map((w) => w.obj.channel)).toEqual(['email', 'sms']);
    expect(warns[0]?.msg).toContain('SCHED_SMTP_URL');
    expect(warns[1]?.msg).toContain('SCHED_TWILIO_ACCOUNT_SID');
    const kept = logger.lines.filter((l) => l.msg === 'approval message kept in the outbox');
    expect(kept).toHaveLength(3);
    expect(kept[2]?.obj).toMatchObject({ channel: 'sms', actionId: message.actionId, to: '+15551234567' });
  });

  it('answers a failed receipt when the outbox itself fails', async () => {
    const logger = recordingLogger();
    const channels = createChannels(
      {},
      {
        outbox: {
          store: () => Promise.reject(new Error('database down')),
        },
        logger,
      },
    );
    const receipt = await channels.sms.send(
      { channel: 'sms', phone: '+15551234567' },
      sampleApprovalMessage(),
    );
    expect(receipt).toEqual({ ok: false, via: 'outbox', error: 'outbox: database down' });
    expect(logger.lines.some((l) => l.level === 'error')).toBe(true);
  });

  it('sends through providers when configured, and through the injected sender', async () => {
    const twilio = await startLoopbackReceiver(() => ({ status: 201, body: '{"sid":"SM42"}' }));
    const slack = await startLoopbackReceiver(() => ({ status: 200, body: 'ok' }));
    receivers.push(twilio, slack);
    const outbox = createMemoryOutbox();
    const sent: string[] = [];
    const channels = createChannels(
      { sms: { accountSid: 'AC1', authToken: 'token', from: '+15005550006', apiUrl: twilio.origin } },
      {
        outbox,
        logger: recordingLogger(),
        fetch: (input, init) => {
          sent.push(String(input));
          return fetch(input, init);
        },
      },
    );
    expect(channels.sms.configured).toBe(true);
    const receipt = await channels.sms.send(
      { channel: 'sms', phone: '+15551234567' },
      sampleApprovalMessage(),
    );
    expect(receipt).toEqual({ ok: true, via: 'provider', providerMessageId: 'SM42' });
    expect(twilio.requests[0]?.url).toBe('/2010-04-01/Accounts/AC1/Messages.json');

    const slackReceipt = await channels.slack.send(
      { channel: 'slack', webhookUrl: `${slack.origin}/services/a` },
      sampleApprovalMessage(),
    );
    expect(slackReceipt).toEqual({ ok: true, via: 'provider' });
    expect(sent).toEqual([
      `${twilio.origin}/2010-04-01/Accounts/AC1/Messages.json`,
      `${slack.origin}/services/a`,
    ]);
    expect(outbox.entries).toHaveLength(0);
  });
});

describe('configuredChannels', () => {
  const email = { smtpUrl: 'smtp://127.0.0.1:2525', from: 'sched@example.com' };
  const sms = { accountSid: 'AC1', authToken: 'token', from: '+15005550006', apiUrl: 'http://127.0.0.1:9' };
  const push = { publicKey: 'BPub', privateKey: 'priv', subject: 'mailto:ops@example.com' };
  const configs: [string, ChannelConfig, string[]][] = [
    ['nothing set', {}, ['slack', 'teams']],
    ['SMTP', { email }, ['email', 'slack', 'teams']],
    ['Twilio', { sms }, ['slack', 'sms', 'teams']],
    ['VAPID', { push }, ['push', 'slack', 'teams']],
    ['everything', { email, sms, push }, ['email', 'push', 'slack', 'sms', 'teams']],
  ];

  it.each(configs)('with %s: Slack and Teams always, the others with their settings', (_, config, names) => {
    expect([...configuredChannels(config)].sort()).toEqual(names);
  });

  // The states /readyz and the create's check read (compose/context.ts) and the adapters the worker sends with
  // come from the one rule: a channel is configured exactly where its adapter has a provider.
  it.each(configs)('with %s: the adapters built are configured exactly where the rule says', (_, config) => {
    const channels = createChannels(config, { outbox: createMemoryOutbox(), logger: recordingLogger() });
    const built = CHANNELS.filter((name) => channels[name].configured);
    expect(built.sort()).toEqual([...configuredChannels(config)].sort());
  });
});
