import { CHAT_CHANNELS, type ChatChannelName, type GateChannelName } from '@sched/contract';

/**
 * The shapes of approval messages, shared by the use case that sends a round (app/approvals/rounds.ts), the
 * stored recipients (persistence) and the channel adapters (channels/), which implement sending them.
 */

/** A notification channel of approval gates (the contract's `GATE_CHANNEL`). */
export type ChannelName = GateChannelName;

/** Where one message goes, by channel. */
export type ChannelTarget =
  | { channel: 'email'; email: string; name?: string }
  | { channel: 'sms'; phone: string }
  | { channel: 'slack'; webhookUrl: string }
  /** Slack app mode: a channel the bot posts to (`slack_channel_id`), or a member it sends a direct message to. */
  | { channel: 'slack'; slackChannelId: string }
  | { channel: 'slack'; slackMemberId: string }
  | { channel: 'teams'; webhookUrl: string }
  | { channel: 'push'; subscription: PushSubscription };

export interface PushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface MessageAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** One approval message for one recipient. Text fields are plain text: adapters escape them for their format. */
export interface ApprovalMessage {
  actionId: string;
  /** Title of the request (the action's name). */
  title: string;
  /**
   * The gate message, plain text, up to 5000 characters, already normalised (`normaliseBody`): the round renders
   * it once, not once per target, so adapters use it as it is.
   */
  body: string;
  recipientName: string;
  /** The recipient's own login-free link; every button opens it. */
  responseUrl: string;
  /**
   * Slack app mode: the opaque reference its Confirm and Decline buttons carry (stored hashed, answering only
   * through a signed click); absent elsewhere.
   */
  slackReference?: string;
  /** Approve by replying: the Reply-To address of the approval email (`reply+<token>@<domain>`); absent when off. */
  replyTo?: string;
  buttons: { confirm: string; decline: string };
  snoozeAllowed: boolean;
  expiresAt: Date;
  /** `request`: first send; `reminder`: re-sent after a snooze; `escalation`: sent to escalation contacts. */
  kind: 'request' | 'reminder' | 'escalation';
  attachments: MessageAttachment[];
}

export interface DeliveryReceipt {
  /** true when the provider accepted the message (or the outbox stored it). */
  ok: boolean;
  /**
   * `outbox` when the channel is not configured and a development server kept the message for operators;
   * `not_configured` when a production server could not send it at all.
   */
  via: 'provider' | 'outbox' | 'not_configured';
  providerMessageId?: string;
  error?: string;
}

/** Slack and Teams: the chat channels, a Business-plan feature metered as chat messages. */
export function isChatChannel(channel: ChannelName): channel is ChatChannelName {
  return (CHAT_CHANNELS as readonly ChannelName[]).includes(channel);
}

/** Where a notification channel (`channel:<id>`) sends: its webhook, or in Slack app mode its conversation. */
export function chatTarget(c: {
  type: ChatChannelName;
  webhook_url: string | null;
  slack_channel_id: string | null;
}): ChannelTarget {
  if (c.type === 'teams') return { channel: 'teams', webhookUrl: c.webhook_url ?? '' };
  if (c.slack_channel_id) return { channel: 'slack', slackChannelId: c.slack_channel_id };
  return { channel: 'slack', webhookUrl: c.webhook_url ?? '' };
}

/** The address a message to `target` goes to (an email, a phone number, a push endpoint, a chat webhook). */
export function destinationOf(target: ChannelTarget): string {
  switch (target.channel) {
    case 'email':
      return target.email;
    case 'sms':
      return target.phone;
    case 'push':
      return target.subscription.endpoint;
    case 'slack':
      if ('slackChannelId' in target) return `slack:${target.slackChannelId}`;
      if ('slackMemberId' in target) return `slack:${target.slackMemberId}`;
      return target.webhookUrl;
    case 'teams':
      return target.webhookUrl;
  }
}

/**
 * Line endings normalised to `\n`, trailing spaces and tabs cut from each line, runs of blank lines trimmed.
 * Written as one pass over the lines: `/[ \t]+\n/g` (and `/[ \t]+$/gm`) retry from every start position of a
 * long run of spaces, which is quadratic, and a 5000-space message then blocked the worker for seconds.
 */
export function normaliseBody(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let blanks = 0;
  for (const line of lines) {
    let end = line.length;
    while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end -= 1;
    const kept = line.slice(0, end);
    blanks = kept === '' ? blanks + 1 : 0;
    if (blanks <= 1) out.push(kept);
  }
  return out.join('\n').trim();
}
