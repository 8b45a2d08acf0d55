import type { ApprovalMessage } from './types.js';

/**
 * Wording shared by every channel, so an approval reads the same in a mailbox, a chat and on a phone.
 * Everything here returns plain text; each adapter escapes it for its own format.
 */

const HEADLINE_PREFIX: Record<ApprovalMessage['kind'], string> = {
  request: 'Approval needed',
  reminder: 'Reminder',
  escalation: 'Escalated',
};

const INTRO: Record<ApprovalMessage['kind'], string> = {
  request: 'Your approval is requested.',
  reminder: 'Reminder: this request is still waiting for your answer.',
  escalation: 'This request had no answer in time and was escalated to you.',
};

/** The title to show: the action's name, or a neutral one when it has none. */
export function displayTitle(message: ApprovalMessage): string {
  const title = message.title.replace(/\s+/g, ' ').trim();
  return title === '' ? 'Approval request' : title;
}

/** `Approval needed: <title>`, `Reminder: <title>` or `Escalated: <title>`. */
export function headline(message: ApprovalMessage): string {
  return `${HEADLINE_PREFIX[message.kind]}: ${displayTitle(message)}`;
}

export function introLine(message: ApprovalMessage): string {
  return INTRO[message.kind];
}

/** An unambiguous UTC time for text channels: `2026-11-28 13:00 UTC`. */
export function formatExpiry(expiresAt: Date): string {
  return `${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function snoozeLine(message: ApprovalMessage): string | undefined {
  return message.snoozeAllowed
    ? 'Need more time? You can snooze this request from the same page.'
    : undefined;
}

/** `2 attachments: a.pdf, b.png`, or undefined when there are none. */
export function attachmentsLine(
  message: ApprovalMessage,
  where = 'on the response page',
): string | undefined {
  const n = message.attachments.length;
  if (n === 0) return undefined;
  const names = message.attachments.map((a) => a.filename).join(', ');
  return `${n} attachment${n === 1 ? '' : 's'} ${where}: ${names}`;
}

// The body is normalised once per round by the sender (domain/approval/messages.ts); adapters re-export it here.
export { normaliseBody } from '../domain/approval/messages.js';

/** Cuts `text` to at most `max` code points, ending with `ellipsis` when cut. */
export function truncate(text: string, max: number, ellipsis = '…'): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const keep = Math.max(0, max - Array.from(ellipsis).length);
  return `${chars.slice(0, keep).join('').trimEnd()}${ellipsis}`;
}

/** Cuts `text` so that its UTF-8 encoding takes at most `maxBytes`, ending with `…` when cut. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength('…', 'utf8');
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (used + size > budget) break;
    out += ch;
    used += size;
  }
  return `${out.trimEnd()}…`;
}
