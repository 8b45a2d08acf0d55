import type { AddressInfo } from 'node:net';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmailChannel, renderEmail } from './email.js';
import { sampleApprovalMessage } from './testing.js';

interface Received {
  raw: Buffer;
  /** Copied at DATA time: the server resets the session's envelope after each message. */
  envelope: SMTPServerSession['envelope'];
}

interface Smtp {
  port: number;
  received: Received[];
  close(): Promise<void>;
}

const servers: Smtp[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A real SMTP server on loopback, plain text (no STARTTLS), keeping each message as received. */
async function startSmtp(options: Partial<SMTPServerOptions> = {}): Promise<Smtp> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ raw: Buffer.concat(chunks), envelope: structuredClone(session.envelope) });
        callback();
      });
    },
    ...options,
  });
  const net = await new Promise<import('node:net').Server>((resolve) => {
    const s = server.listen(0, '127.0.0.1', () => resolve(s));
  });
  const smtp = {
    port: (net.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  servers.push(smtp);
  return smtp;
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ''));
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'));
}

describe('email channel', () => {
  it('delivers an HTML and text message with escaped content, response links and attachments', async () => {
    const smtp = await startSmtp();
    const channel = createEmailChannel({
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
      from: 'sched <no-reply@sched.test>',
    });
    const pdf = Buffer.from('%PDF-1.4 fake report\n');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);
    const message = sampleApprovalMessage({
      body: 'Ship it? <script>alert("x")</script> & more\nSecond line',
      attachments: [
        { filename: 'report.pdf', contentType: 'application/pdf', content: pdf },
        { filename: 'chart.png', contentType: 'image/png', content: png },
      ],
    });

    const receipt = await channel.send(
      { channel: 'email', email: 'ada@example.test', name: 'Ada L.' },
      message,
    );

    expect(receipt).toMatchObject({ ok: true, via: 'provider' });
    expect(receipt.providerMessageId).toMatch(/^<.+@.+>$/);
    expect(smtp.received).toHaveLength(1);
    const { raw, envelope } = smtp.received[0] ?? expect.unreachable();
    expect(envelope.mailFrom).toMatchObject({ address: 'no-reply@sched.test' });
    expect(envelope.rcptTo.map((r) => r.address)).toEqual(['ada@example.test']);

    const mail = await simpleParser(raw);
    expect(addresses(mail.from)).toEqual(['no-reply@sched.test']);
    expect(mail.from?.value[0]?.name).toBe('sched');
    expect(addresses(mail.to)).toEqual(['ada@example.test']);
    expect(mail.subject).toBe('Approval needed: Deploy release 4.2');
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.headers.get('x-sched-action-id')).toBe(message.actionId);

    // Plain text keeps the message verbatim, line breaks included.
    const text = mail.text ?? '';
    expect(text).toContain('Ship it? <script>alert("x")</script> & more\nSecond line');
    expect(text).toContain(`Approve: ${message.responseUrl}`);
    expect(text).toContain(`Reject: ${message.responseUrl}`);
    expect(text).toContain('snooze');
    expect(text).toContain('2030-01-08 12:30 UTC');
    expect(text).toContain('Attached: report.pdf, chart.png');

    // HTML escapes it, keeps the line break, and carries no script element.
    const html = typeof mail.html === 'string' ? mail.html : '';
    expect(html).toContain('Ship it? &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more<br>');
    expect(html).toContain('Second line');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<style/i);
    const links = hrefs(html);
    expect(links.length).toBeGreaterThanOrEqual(2);
    for (const link of links) expect(link).toBe(message.responseUrl);
    expect(html).toMatch(/<a [^>]*>Approve<\/a>/);
    expect(html).toMatch(/<a [^>]*>Reject<\/a>/);
    expect(html).toContain('2030-01-08 12:30 UTC');
    expect(html).toContain('snooze');

    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['report.pdf', 'application/pdf'],
      ['chart.png', 'image/png'],
    ]);
    expect(mail.attachments[0]?.content.equals(pdf)).toBe(true);
    expect(mail.attachments[1]?.content.equals(png)).toBe(true);
  });

  it('authenticates with the credentials of SCHED_SMTP_URL', async () => {
    const logins: { username: string | null | undefined; password: string | null | undefined }[] = [];
    const smtp = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        logins.push({ username: auth.username, password: auth.password });
        if (auth.username === 'mailer' && auth.password === 'p@ss:word') callback(null, { user: 'mailer' });
        else callback(new Error('bad credentials'));
      },
    });
    const channel = createEmailChannel({
      smtpUrl: `smtp://mailer:${encodeURIComponent('p@ss:word')}@127.0.0.1:${smtp.port}`,
      from: 'approvals@sched.test',
    });
    const receipt = await channel.send(
      { channel: 'email', email: 'bob@example.test' },
      sampleApprovalMessage(),
    );
    expect(receipt.ok).toBe(true);
    expect(logins).toEqual([{ username: 'mailer', password: 'p@ss:word' }]);
    expect(smtp.received).toHaveLength(1);
  });

  it('reports a refused recipient as a failed receipt', async () => {
    const smtp = await startSmtp({
      onRcptTo(_address, _session, callback) {
        const err = new Error('No such user') as Error & { responseCode: number };
        err.responseCode = 550;
        callback(err);
      },
    });
    const channel = createEmailChannel({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'a@sched.test' });
    const receipt = await channel.send(
      { channel: 'email', email: 'ghost@example.test' },
      sampleApprovalMessage(),
    );
    expect(receipt.ok).toBe(false);
    expect(receipt.via).toBe('provider');
    expect(receipt.error).toMatch(/550|No such user/);
    expect(smtp.received).toHaveLength(0);
  });

  it('reports an unreachable server as a failed receipt', async () => {
    const smtp = await startSmtp();
    const port = smtp.port;
    await smtp.close();
    servers.length = 0;
    const channel = createEmailChannel({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'a@sched.test' });
    const receipt = await channel.send(
      { channel: 'email', email: 'x@example.test' },
      sampleApprovalMessage(),
    );
    expect(receipt).toMatchObject({ ok: false, via: 'provider' });
    expect(receipt.error).toMatch(/ECONNREFUSED|connect/i);
  });

  it('refuses a target of another channel', async () => {
    const channel = createEmailChannel({ smtpUrl: 'smtp://127.0.0.1:1', from: 'a@sched.test' });
    const receipt = await channel.send({ channel: 'sms', phone: '+15551234567' }, sampleApprovalMessage());
    expect(receipt).toMatchObject({ ok: false, via: 'provider' });
  });
});

describe('renderEmail', () => {
  it('names reminders and escalations in the subject', () => {
    expect(renderEmail(sampleApprovalMessage({ kind: 'reminder' })).subject).toBe(
      'Reminder: Deploy release 4.2',
    );
    expect(renderEmail(sampleApprovalMessage({ kind: 'escalation' })).subject).toBe(
      'Escalated: Deploy release 4.2',
    );
    expect(renderEmail(sampleApprovalMessage({ title: '  ' })).subject).toBe(
      'Approval needed: Approval request',
    );
  });

  it('leaves the snooze line out when snoozing is not allowed', () => {
    const email = renderEmail(sampleApprovalMessage({ snoozeAllowed: false }));
    expect(email.text).not.toContain('snooze');
    expect(email.html).not.toContain('snooze');
  });

  it('escapes the title and the button labels', () => {
    const email = renderEmail(
      sampleApprovalMessage({
        title: 'A <b>bold</b> move',
        buttons: { confirm: 'Yes & go', decline: '<No>' },
      }),
    );
    expect(email.html).toContain('A &lt;b&gt;bold&lt;/b&gt; move');
    expect(email.html).toContain('>Yes &amp; go</a>');
    expect(email.html).toContain('>&lt;No&gt;</a>');
    expect(email.html).not.toContain('<b>');
  });
});
