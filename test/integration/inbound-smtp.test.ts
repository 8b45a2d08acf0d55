import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboundMail } from '../../server/src/app/approvals/inbound-email.js';
import {
  INBOUND_MAIL_MAX_BYTES,
  INBOUND_MAIL_PER_MINUTE,
  type InboundSmtp,
  readInboundMail,
  startInboundSmtp,
} from '../../server/src/integrations/inbound-mail.js';

// The inbound SMTP listener on its own, with a real SMTP client (nodemailer): what it accepts, what it refuses,
// STARTTLS with a certificate, and how a message reads.

const DOMAIN = 'replies.example.com';
const TOKEN = 'ab'.repeat(24);
const log = { warn: () => undefined };

describe('inbound SMTP for replies', () => {
  let smtp: InboundSmtp | undefined;
  afterEach(async () => {
    await smtp?.close();
    smtp = undefined;
  });

  const start = async (opts: { tls?: { certFile: string; keyFile: string }; now?: () => number } = {}) => {
    const received: InboundMail[] = [];
    smtp = await startInboundSmtp({
      host: '127.0.0.1',
      port: 0,
      domain: DOMAIN,
      tls: opts.tls ?? null,
      receive: async (mail) => {
        received.push(mail);
      },
      log,
      ...(opts.now ? { now: opts.now } : {}),
    });
    return received;
  };
  const client = (extra: Record<string, unknown> = {}) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp!.port,
      secure: false,
      ignoreTLS: true,
      ...extra,
    });

  it('reads a reply: From, envelope, recipients, text, and whether it is automatic', async () => {
    const received = await start();
    await client().sendMail({
      from: 'Ada <ada@example.com>',
      to: `reply+${TOKEN}@${DOMAIN}`,
      subject: 'Re: Approval needed',
      text: 'yes\n\n> quoted',
      headers: { 'Auto-Submitted': 'auto-replied' },
      envelope: { from: 'bounces@example.com', to: [`reply+${TOKEN}@${DOMAIN}`] },
    });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      from: 'ada@example.com',
      envelopeFrom: 'bounces@example.com',
      subject: 'Re: Approval needed',
      automatic: true,
    });
    expect(received[0]!.to[0]).toBe(`reply+${TOKEN}@${DOMAIN}`);
    expect(received[0]!.text).toContain('yes');
  });

  it('refuses other recipients (no relay) and messages over 1 MiB', async () => {
    const received = await start();
    await expect(
      client().sendMail({ from: 'ada@example.com', to: 'someone@example.org', text: 'approve' }),
    ).rejects.toThrow(/550/);
    await expect(
      client().sendMail({
        from: 'ada@example.com',
        to: `reply+${TOKEN}@${DOMAIN}`,
        text: 'x'.repeat(INBOUND_MAIL_MAX_BYTES + 10),
      }),
    ).rejects.toThrow(/552/);
    expect(received).toEqual([]);
  });

  it(`tells a client address past ${INBOUND_MAIL_PER_MINUTE} messages a minute to come back later`, async () => {
    let now = 1_000_000;
    const received = await start({ now: () => now });
    const transport = client({ pool: true, maxConnections: 1, maxMessages: Number.POSITIVE_INFINITY });
    for (let i = 0; i < INBOUND_MAIL_PER_MINUTE; i++)
      await transport.sendMail({ from: 'ada@example.com', to: `reply+${TOKEN}@${DOMAIN}`, text: `ok ${i}` });
    await expect(
      transport.sendMail({ from: 'ada@example.com', to: `reply+${TOKEN}@${DOMAIN}`, text: 'one too many' }),
    ).rejects.toThrow(/421/);
    transport.close();
    expect(received).toHaveLength(INBOUND_MAIL_PER_MINUTE);
    now += 60_000;
    await client().sendMail({ from: 'ada@example.com', to: `reply+${TOKEN}@${DOMAIN}`, text: 'next minute' });
    expect(received).toHaveLength(INBOUND_MAIL_PER_MINUTE + 1);
  });

  it('offers STARTTLS when a certificate is configured', async () => {
    const pems = await generate([{ name: 'commonName', value: DOMAIN }], { keySize: 2048 });
    const dir = mkdtempSync(join(tmpdir(), 'sched-inbound-'));
    writeFileSync(join(dir, 'cert.pem'), pems.cert);
    writeFileSync(join(dir, 'key.pem'), pems.private);
    const received = await start({ tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } });
    const info = await client({
      ignoreTLS: false,
      requireTLS: true,
      tls: { ca: pems.cert, servername: DOMAIN },
    }).sendMail({
      from: 'ada@example.com',
      to: `reply+${TOKEN}@${DOMAIN}`,
      text: 'approve over TLS',
    });
    expect(info.accepted).toEqual([`reply+${TOKEN}@${DOMAIN}`]);
    expect(received[0]!.text).toContain('approve over TLS');
    // Without a certificate the listener does not offer it: a client that requires TLS is refused.
    await smtp!.close();
    smtp = undefined;
    await start();
    await expect(
      client({ ignoreTLS: false, requireTLS: true }).sendMail({
        from: 'ada@example.com',
        to: `reply+${TOKEN}@${DOMAIN}`,
        text: 'x',
      }),
    ).rejects.toThrow(/STARTTLS/i);
  });

  it('reads a raw MIME message from a hook: Return-Path stands for the envelope sender', async () => {
    const mail = await readInboundMail(
      Buffer.from(
        [
          'Return-Path: <>',
          'From: ada@example.com',
          `To: reply+${TOKEN}@${DOMAIN}`,
          'Subject: Re: x',
          '',
          'approve',
        ].join('\r\n'),
      ),
    );
    expect(mail).toMatchObject({ from: 'ada@example.com', envelopeFrom: '', automatic: false });
    expect(mail.to).toEqual([`reply+${TOKEN}@${DOMAIN}`]);
  });
});
