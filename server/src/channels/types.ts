import { GATE_CHANNEL, type GateChannelName } from '@sched/contract';

/**
 * Notification channels for approval gates. Every adapter implements `ChannelAdapter`; the approval engine only
 * sees this interface. An adapter that is not configured hands its messages to the outbox instead of dropping them.
 */
export const CHANNELS: readonly ChannelName[] = Object.freeze(Object.values(GATE_CHANNEL));
export type ChannelName = GateChannelName;

/** Where one message goes, by channel. */
export type ChannelTarget =
  | { channel: 'email'; email: string; name?: string }
  | { channel: 'sms'; phone: string }
  | { channel: 'slack'; webhookUrl: string }
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
   * The gate message, plain text, up to 5000 characters, already normalised (`normaliseBody`): the engine renders
   * it once per round, not once per target, so adapters use it as it is.
   */
  body: string;
  recipientName: string;
  /** The recipient's own login-free link; every button opens it. */
  responseUrl: string;
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
  /** `outbox` when the channel is not configured and the message was kept for operators. */
  via: 'provider' | 'outbox';
  providerMessageId?: string;
  error?: string;
}

export interface ChannelAdapter {
  readonly name: ChannelName;
  /** false when its environment variables are missing: messages then go to the outbox. */
  readonly configured: boolean;
  send(target: ChannelTarget, message: ApprovalMessage): Promise<DeliveryReceipt>;
}

/** Keeps messages of unconfigured channels where operators can read them (a table, plus a log line). */
export interface Outbox {
  store(entry: {
    channel: ChannelName;
    target: ChannelTarget;
    message: ApprovalMessage;
    rendered: string;
  }): Promise<void>;
}
