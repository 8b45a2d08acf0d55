import webPush from 'web-push';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryOutbox, renderForOutbox } from './outbox.js';
import { ChannelConfigError, type ChannelLogger, channelConfigFromEnv, createChannels } from './registry.js';
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
      {
        SCHED_TWILIO_ACCOUNT_SID: 'AC1',
        SCHED_TWILIO_AUTH_TOKEN: 'token',
        SCHED_TWILIO_FROM: '+15005550006',
        SCHED_TWILIO_API_URL: `${twilio.origin}/`,
      },
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

describe('channelConfigFromEnv', () => {
  it('reads nothing from an empty environment', () => {
    expect(channelConfigFromEnv({})).toEqual({});
    expect(channelConfigFromEnv({ SCHED_SMTP_URL: '', SCHED_TWILIO_FROM: ' ' })).toEqual({});
  });

  it('reads every channel variable', () => {
    const vapid = webPush.generateVAPIDKeys();
    expect(
      channelConfigFromEnv({
        SCHED_SMTP_URL: 'smtps://user:pa%40ss@mail.example.com:465',
        SCHED_EMAIL_FROM: 'Approvals <approvals@example.com>',
        SCHED_TWILIO_ACCOUNT_SID: 'AC123',
        SCHED_TWILIO_AUTH_TOKEN: 'secret',
        SCHED_TWILIO_FROM: '+15005550006',
        SCHED_VAPID_PUBLIC_KEY: vapid.publicKey,
        SCHED_VAPID_PRIVATE_KEY: vapid.privateKey,
        SCHED_VAPID_SUBJECT: 'mailto:ops@example.com',
      }),
    ).toEqual({
      email: {
        smtpUrl: 'smtps://user:pa%40ss@mail.example.com:465',
        from: 'Approvals <approvals@example.com>',
      },
      sms: {
        accountSid: 'AC123',
        authToken: 'secret',
        from: '+15005550006',
        apiUrl: 'https://api.twilio.com',
      },
      push: { publicKey: vapid.publicKey, privateKey: vapid.privateKey, subject: 'mailto:ops@example.com' },
    });
  });

  it('defaults the sender address', () => {
    expect(channelConfigFromEnv({ SCHED_SMTP_URL: 'smtp://127.0.0.1:2525' }).email?.from).toBe(
      'sched <no-reply@localhost>',
    );
  });

  it('names each malformed or missing variable', () => {
    const vapid = webPush.generateVAPIDKeys();
    let error: unknown;
    try {
      channelConfigFromEnv({
        SCHED_SMTP_URL: 'http://mail.example.com',
        SCHED_EMAIL_FROM: 'nobody',
        SCHED_TWILIO_ACCOUNT_SID: 'AC123',
        SCHED_TWILIO_API_URL: 'ftp://twilio',
        SCHED_VAPID_PUBLIC_KEY: vapid.privateKey,
        SCHED_VAPID_PRIVATE_KEY: vapid.privateKey,
        SCHED_VAPID_SUBJECT: 'ops@example.com',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ChannelConfigError);
    const text = (error as Error).message;
    for (const name of [
      'SCHED_SMTP_URL',
      'SCHED_EMAIL_FROM',
      'SCHED_TWILIO_AUTH_TOKEN, SCHED_TWILIO_FROM',
      'SCHED_TWILIO_API_URL',
      'SCHED_VAPID_PUBLIC_KEY',
      'SCHED_VAPID_SUBJECT',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).not.toContain('SCHED_VAPID_PRIVATE_KEY');
    expect(() => channelConfigFromEnv({ SCHED_VAPID_SUBJECT: 'mailto:a@b.c' })).toThrow(
      /SCHED_VAPID_PUBLIC_KEY, SCHED_VAPID_PRIVATE_KEY: required/,
    );
  });
});
