import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The Reply-To address, '' when none. */
  replyTo: string;
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; contentType: string; content: Buffer }[];
}

/** A real SMTP server on loopback (the `smtp-server` package) that keeps every message it receives, parsed. */
export async function startSmtpServer(): Promise<{
  url: string;
  mails: ReceivedMail[];
  waitFor: (to: string, count?: number, timeoutMs?: number) => Promise<ReceivedMail[]>;
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((m) => {
          const to = (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).flatMap((a) =>
            a.value.map((v) => v.address ?? ''),
          );
          mails.push({
            from: m.from?.value[0]?.address ?? '',
            to,
            replyTo: m.replyTo?.value[0]?.address ?? '',
            subject: m.subject ?? '',
            text: m.text ?? '',
            html: typeof m.html === 'string' ? m.html : '',
            attachments: m.attachments.map((a) => ({
              filename: a.filename ?? '',
              contentType: a.contentType,
              content: a.content,
            })),
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(to, count = 1, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = mails.filter((m) => m.to.includes(to));
        if (got.length >= count) return got;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${count} mail(s) to ${to}; got ${got.length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The first response link in a message. */
export function linkIn(text: string): string {
  const m = /https?:\/\/[^\s"'<>]+\/r\/[A-Za-z0-9_-]+/.exec(text);
  if (!m) throw new Error(`no response link in: ${text.slice(0, 500)}`);
  return m[0];
}
