import { providerAdapter } from './provider.js';
import escapeHtml from 'escape-html';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { type AlertMessage, alertHeadline, alertSampleNote, alertSummary } from '../domain/alerts/message.js';
import { displayTitle, formatExpiry, headline, introLine, snoozeLine } from './render.js';
import type { ApprovalMessage, ChannelAdapter } from './types.js';

/** Email over SMTP with nodemailer. */

export interface EmailConfig {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465` (TLS from the start). */
  smtpUrl: string;
  /** The From header, e.g. `sched <no-reply@example.com>`. */
  from: string;
}

export const DEFAULT_EMAIL_FROM = 'sched <no-reply@localhost>';

/** SMTP connect, greeting and idle bounds, in line with the 30 s bound of every outgoing request. */
const SMTP_TIMEOUT_MS = 30_000;

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** nodemailer (about 25 MiB of a process's memory) is loaded by the first email sent, not by every process. */
function lazyTransport(config: EmailConfig): () => Promise<Transporter<SMTPTransport.SentMessageInfo>> {
  let transporter: Promise<Transporter<SMTPTransport.SentMessageInfo>> | undefined;
  return () =>
    (transporter ??= import('nodemailer').then(({ createTransport }) =>
      createTransport(
        {
          url: config.smtpUrl,
          connectionTimeout: SMTP_TIMEOUT_MS,
          greetingTimeout: SMTP_TIMEOUT_MS,
          socketTimeout: SMTP_TIMEOUT_MS,
        },
        { from: config.from },
      ),
    ));
}

/** The short mails that tell a reply's sender why it changed nothing (app/approvals/inbound-email.ts). */
export function createReplyNotices(config: EmailConfig) {
  const transport = lazyTransport(config);
  return {
    async send(notice: {
      to: string;
      subject: string;
      text: string;
      inReplyTo: string | null;
    }): Promise<void> {
      await (await transport()).sendMail({
        to: notice.to,
        subject: notice.subject,
        text: notice.text,
        ...(notice.inReplyTo ? { inReplyTo: notice.inReplyTo, references: notice.inReplyTo } : {}),
        // RFC 3834: an automatic answer, which no responder answers in turn.
        headers: { 'Auto-Submitted': 'auto-replied' },
      });
    },
  };
}

export function createEmailChannel(config: EmailConfig): ChannelAdapter {
  const transport = lazyTransport(config);

  return providerAdapter('email', async (target, message) => {
    const alert = message.kind === 'alert';
    const rendered = alert ? renderAlertEmail(message) : renderEmail(message, target);
    try {
      const info = await (await transport()).sendMail({
        to: target.name ? { name: target.name, address: target.email } : target.email,
        ...(!alert && message.replyTo ? { replyTo: message.replyTo } : {}),
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        attachments: alert
          ? []
          : message.attachments.map((a) => ({
              filename: a.filename,
              contentType: a.contentType,
              content: a.content,
            })),
        headers: {
          // RFC 3834: out-of-office responders must not answer an automated message.
          'Auto-Submitted': 'auto-generated',
          ...(alert
            ? { 'X-Sched-Alert-Rule-Id': message.ruleId }
            : { 'X-Sched-Action-Id': message.actionId }),
        },
      });
      if (info.rejected.length > 0) {
        return { ok: false, via: 'provider', error: `SMTP server rejected ${info.rejected.join(', ')}` };
      }
      return { ok: true, via: 'provider', providerMessageId: info.messageId };
    } catch (err) {
      return { ok: false, via: 'provider', error: describeSmtpError(err) };
    }
  });
}

function describeSmtpError(err: unknown): string {
  if (!(err instanceof Error)) return `SMTP: ${String(err)}`;
  const e = err as Error & { responseCode?: number; code?: string };
  const code = e.responseCode ?? e.code;
  return `SMTP${code === undefined ? '' : ` ${code}`}: ${e.message}`;
}

/** Subject, plain-text and HTML parts of one approval email. Pure: used by the adapter and by tests. */
export function renderEmail(message: ApprovalMessage, target?: { name?: string }): RenderedEmail {
  return {
    subject: headline(message),
    text: renderText(message, target),
    html: renderHtml(message, target),
  };
}

function greeting(message: ApprovalMessage, target?: { name?: string }): string {
  const name = (target?.name ?? message.recipientName).trim();
  return name === '' ? 'Hello,' : `Hello ${name},`;
}

function renderText(message: ApprovalMessage, target?: { name?: string }): string {
  const lines = [
    greeting(message, target),
    '',
    introLine(message),
    '',
    message.body,
    '',
    `${message.buttons.confirm}: ${message.responseUrl}`,
    `${message.buttons.decline}: ${message.responseUrl}`,
  ];
  const snooze = snoozeLine(message);
  if (snooze) lines.push(snooze);
  if (message.replyTo) lines.push(REPLY_HINT);
  lines.push('');
  const attachments = attachedLine(message);
  if (attachments) lines.push(attachments);
  lines.push(`This request expires on ${formatExpiry(message.expiresAt)}.`);
  lines.push('', 'The link is personal: anyone who has it can answer for you.');
  return `${lines.join('\n')}\n`;
}

/** Approve by replying: what the first line of a reply may say (domain/approval/reply.ts reads it). */
const REPLY_HINT =
  'Or reply to this email with "approve" or "decline" on the first line (a comment may follow).';

function attachedLine(message: ApprovalMessage): string | undefined {
  if (message.attachments.length === 0) return undefined;
  return `Attached: ${message.attachments.map((a) => a.filename).join(', ')}`;
}

/** Escaped text with its line breaks kept as `<br>` (clients such as Outlook ignore `white-space`). */
function htmlText(text: string): string {
  return escapeHtml(text).replace(/\n/g, '<br>\n');
}

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

const PARAGRAPH = `margin:0 0 16px;${FONT};font-size:15px;line-height:22px;color:#1f2328`;
const SMALL = `margin:0 0 8px;${FONT};font-size:13px;line-height:19px;color:#59636e`;

/**
 * The HTML document every email of sched is: a centred card of at most 600 px, made of presentation tables (what
 * mail clients lay out alike), its title and `h1` the message's headline, then `content`.
 */
function htmlEmail(title: string, heading: string, content: readonly string[]): string {
  return `${[
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    '<body style="margin:0;padding:0;background:#f6f8fa">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f6f8fa">',
    '<tr><td align="center" style="padding:24px 12px">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" ' +
      'style="max-width:600px;background:#ffffff;border:1px solid #d1d9e0;border-radius:8px">',
    '<tr><td style="padding:28px 28px 8px">',
    `<h1 style="margin:0 0 16px;${FONT};font-size:22px;line-height:28px;color:#1f2328">` +
      `${escapeHtml(heading)}</h1>`,
    ...content,
    '</td></tr></table>',
    '</td></tr></table>',
    '</body></html>',
  ].join('\n')}\n`;
}

function button(label: string, url: string, background: string): string {
  // A table cell carries the colour so the button keeps its shape where clients drop padding on links.
  return (
    `<td style="border-radius:6px;background:${background};padding:0">` +
    `<a href="${escapeHtml(url)}" style="display:inline-block;padding:14px 28px;${FONT};font-size:17px;` +
    `font-weight:600;line-height:20px;color:#ffffff;text-decoration:none;border-radius:6px">` +
    `${escapeHtml(label)}</a></td>`
  );
}

function renderHtml(message: ApprovalMessage, target?: { name?: string }): string {
  const snooze = snoozeLine(message);
  const attachments = attachedLine(message);
  return htmlEmail(headline(message), displayTitle(message), [
    `<p style="${PARAGRAPH}">${escapeHtml(greeting(message, target))}</p>`,
    `<p style="${PARAGRAPH}">${escapeHtml(introLine(message))}</p>`,
    `<div style="margin:0 0 24px;padding:16px;background:#f6f8fa;border-left:4px solid #0969da;${FONT};` +
      `font-size:15px;line-height:22px;color:#1f2328">${htmlText(message.body)}</div>`,
    '<table role="presentation" cellpadding="0" cellspacing="0" style="margin:0 0 20px"><tr>',
    button(message.buttons.confirm, message.responseUrl, '#1a7f37'),
    '<td style="width:16px;padding:0">&nbsp;</td>',
    button(message.buttons.decline, message.responseUrl, '#cf222e'),
    '</tr></table>',
    ...(snooze ? [`<p style="${PARAGRAPH}">${escapeHtml(snooze)}</p>`] : []),
    ...(attachments ? [`<p style="${SMALL}">${escapeHtml(attachments)}</p>`] : []),
    `<p style="${SMALL}">This request expires on <strong>${escapeHtml(formatExpiry(message.expiresAt))}</strong>.</p>`,
    `<p style="${SMALL}">If the buttons do not work, open this link: ` +
      `<a href="${escapeHtml(message.responseUrl)}" style="color:#0969da;word-break:break-all">` +
      `${escapeHtml(message.responseUrl)}</a></p>`,
    `<p style="${SMALL}">The link is personal: anyone who has it can answer for you.</p>`,
  ]);
}

/** Subject, plain-text and HTML parts of one alert email. Pure: used by the adapter and by tests. */
export function renderAlertEmail(message: AlertMessage): RenderedEmail {
  const note = alertSampleNote(message);
  const text = [alertSummary(message), '', ...message.lines.map((l) => `- ${l}`)];
  if (note) text.push('', note);
  text.push(
    '',
    `Alert rule ${message.ruleId}: change or mute it with PUT /v1/alert-rules/${message.ruleId}.`,
  );
  const html = htmlEmail(alertHeadline(message), alertHeadline(message), [
    `<p style="${PARAGRAPH}">${escapeHtml(alertSummary(message))}</p>`,
    `<ul style="margin:0 0 16px;padding-left:20px;${FONT};font-size:14px;line-height:21px;color:#1f2328">`,
    ...message.lines.map((l) => `<li>${escapeHtml(l)}</li>`),
    '</ul>',
    ...(note ? [`<p style="${SMALL}">${escapeHtml(note)}</p>`] : []),
    `<p style="${SMALL}">Alert rule ${escapeHtml(message.ruleId)}.</p>`,
  ]);
  return { subject: alertHeadline(message), text: `${text.join('\n')}\n`, html };
}
