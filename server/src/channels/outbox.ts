import { alertHeadline, alertSampleNote, alertSummary } from '../domain/alerts/message.js';
import { formatExpiry, headline, normaliseBody } from './render.js';
import type { ChannelMessage, ChannelName, ChannelTarget, Outbox } from './types.js';

/**
 * What an operator reads for a message its channel could not send (channel not configured): everything needed
 * to pass it on by hand, including the recipient's personal response link (an alert has none).
 */
export function renderForOutbox(
  channel: ChannelName,
  message: ChannelMessage,
  target?: ChannelTarget,
): string {
  if (message.kind === 'alert') {
    const lines = [alertHeadline(message), '', `Channel: ${channel}`];
    if (target) lines.push(`To: ${describeTarget(target)}`);
    lines.push(`Kind: alert`, `Alert rule: ${message.ruleId}`, '', alertSummary(message), '');
    lines.push(...message.lines.map((l) => `- ${l}`));
    const note = alertSampleNote(message);
    if (note) lines.push('', note);
    return `${lines.join('\n')}\n`;
  }
  const lines = [`${headline(message)}`, '', `Channel: ${channel}`];
  if (target) lines.push(`To: ${describeTarget(target)}`);
  if (message.recipientName.trim() !== '') lines.push(`Recipient: ${message.recipientName}`);
  lines.push(
    `Kind: ${message.kind}`,
    `Action: ${message.actionId}`,
    `Response link: ${message.responseUrl}`,
    `Buttons: ${message.buttons.confirm} / ${message.buttons.decline}`,
    `Snooze: ${message.snoozeAllowed ? 'allowed' : 'not allowed'}`,
    `Expires: ${formatExpiry(message.expiresAt)}`,
  );
  if (message.attachments.length > 0) {
    lines.push('Attachments:');
    for (const a of message.attachments)
      lines.push(`  - ${a.filename} (${a.contentType}, ${a.content.length} bytes)`);
  }
  lines.push('', normaliseBody(message.body));
  return `${lines.join('\n')}\n`;
}

/** The recipient as an operator would dial or address it; webhook URLs and push endpoints are secrets, so cut. */
export function describeTarget(target: ChannelTarget): string {
  switch (target.channel) {
    case 'email':
      return target.name ? `${target.name} <${target.email}>` : target.email;
    case 'sms':
      return target.phone;
    case 'slack':
      if ('slackChannelId' in target) return `Slack channel ${target.slackChannelId}`;
      if ('slackMemberId' in target) return `Slack member ${target.slackMemberId}`;
      return `webhook ${originOf(target.webhookUrl)}`;
    case 'teams':
      return `webhook ${originOf(target.webhookUrl)}`;
    case 'push':
      return `push subscription at ${originOf(target.subscription.endpoint)}`;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

export type OutboxEntry = Parameters<Outbox['store']>[0];

/** An outbox kept in memory: for tests and for running without a database. */
export function createMemoryOutbox(): Outbox & { readonly entries: OutboxEntry[] } {
  const entries: OutboxEntry[] = [];
  return {
    entries,
    async store(entry) {
      entries.push(entry);
    },
  };
}
