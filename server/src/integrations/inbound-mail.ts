import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { AddressObject } from 'mailparser';
import type { InboundMail } from '../app/approvals/inbound-email.js';

/**
 * Replies to approval emails reach sched as mail: on its own SMTP port (the `smtp-server` package) or through a
 * provider's inbound hook as raw MIME. Both are read here with `mailparser` into the use case's `InboundMail`.
 * Both packages are loaded on first use: most servers take no mail, and loading them costs every start a fifth of a
 * second of CPU.
 */

/** A reply is a few lines and a quote: 1 MiB is generous, and bounds what a sender can make sched parse. */
export const INBOUND_MAIL_MAX_BYTES = 1024 * 1024;
/** Messages a minute from one client address (a fixed one-minute window, in memory). */
export const INBOUND_MAIL_PER_MINUTE = 30;

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? '')).filter(Boolean);
}

/** Reads raw MIME; `envelope` is what SMTP said (a hook gives none: Return-Path and Delivered-To stand in). */
export async function readInboundMail(
  source: Buffer | Readable,
  envelope?: { from: string | null; to: string[] },
): Promise<InboundMail> {
  const { simpleParser } = await import('mailparser');
  const m = await simpleParser(source, { skipHtmlToText: false, skipImageLinks: true });
  const header = (name: string) => {
    const v = m.headers.get(name);
    return typeof v === 'string'
      ? v
      : v === undefined
        ? undefined
        : String((v as { text?: string }).text ?? v);
  };
  const returnPath = header('return-path')?.replace(/[<>\s]/g, '');
  const deliveredTo = header('delivered-to')?.replace(/[<>\s]/g, '');
  const auto = header('auto-submitted')?.toLowerCase();
  const precedence = header('precedence')?.toLowerCase();
  return {
    from: addresses(m.from)[0] ?? null,
    envelopeFrom: envelope ? envelope.from : returnPath !== undefined ? returnPath : null,
    to: [
      ...(envelope?.to ?? []),
      ...addresses(m.to),
      ...addresses(m.cc),
      ...(deliveredTo ? [deliveredTo] : []),
    ],
    text: m.text ?? '',
    subject: m.subject ?? '',
    messageId: m.messageId ?? null,
    automatic:
      (auto !== undefined && auto !== 'no') ||
      precedence === 'bulk' ||
      precedence === 'auto_reply' ||
      precedence === 'junk',
  };
}

export interface InboundSmtp {
  port: number;
  close(): Promise<void>;
}

/**
 * Listens for replies. Only `reply+…@<domain>` recipients are accepted (anything else is refused at RCPT TO, so
 * this is never a relay); messages over 1 MiB are refused; a client address sending more than 30 messages a minute
 * is told to come back later. STARTTLS is offered when a certificate is configured.
 */
export async function startInboundSmtp(opts: {
  host: string;
  port: number;
  domain: string;
  tls: { certFile: string; keyFile: string } | null;
  receive: (mail: InboundMail) => Promise<unknown>;
  log: { warn(fields: object, message: string): void };
  now?: () => number;
}): Promise<InboundSmtp> {
  const now = opts.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();
  const suffix = `@${opts.domain.toLowerCase()}`;
  const { SMTPServer } = await import('smtp-server');
  const server = new SMTPServer({
    name: opts.domain,
    banner: 'sched replies',
    authOptional: true,
    disabledCommands: opts.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(opts.tls ? { key: readFileSync(opts.tls.keyFile), cert: readFileSync(opts.tls.certFile) } : {}),
    size: INBOUND_MAIL_MAX_BYTES,
    logger: false,
    onConnect(session, callback) {
      const ip = session.remoteAddress;
      const t = now();
      const w = windows.get(ip);
      if (!w || t - w.start >= 60_000) windows.set(ip, { start: t, count: 0 });
      if (windows.size > 10_000) windows.clear();
      callback();
    },
    onMailFrom(_address, session, callback) {
      const w = windows.get(session.remoteAddress);
      if (w && ++w.count > INBOUND_MAIL_PER_MINUTE) {
        const err = new Error('too many messages, try again later') as Error & { responseCode: number };
        err.responseCode = 421;
        return callback(err);
      }
      callback();
    },
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      if (!to.startsWith('reply+') || !to.endsWith(suffix)) {
        const err = new Error('no such mailbox here') as Error & { responseCode: number };
        err.responseCode = 550;
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      const envelope = {
        from: session.envelope.mailFrom === false ? null : session.envelope.mailFrom.address,
        to: session.envelope.rcptTo.map((r) => r.address),
      };
      readInboundMail(stream, envelope)
        .then(async (mail) => {
          if ((stream as Readable & { sizeExceeded?: boolean }).sizeExceeded) {
            const err = new Error('message too large') as Error & { responseCode: number };
            err.responseCode = 552;
            return callback(err);
          }
          await opts.receive(mail);
          callback();
        })
        .catch((err: unknown) => {
          opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'inbound mail not read');
          const e = new Error('could not process the message, try again later') as Error & {
            responseCode: number;
          };
          e.responseCode = 451;
          callback(e);
        });
    },
  });
  server.on('error', (err) => opts.log.warn({ err: err.message }, 'inbound SMTP error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.server.address();
  return {
    port: address && typeof address === 'object' ? address.port : opts.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
