import { GATE_CHANNEL } from '@sched/contract';
import type { AlertMessage } from '../domain/alerts/message.js';
import type {
  ApprovalMessage,
  ChannelName,
  ChannelTarget,
  DeliveryReceipt,
} from '../domain/approval/messages.js';

// The message shapes are the sender's (domain/approval/messages.ts); adapters implement sending them.
export type {
  ApprovalMessage,
  ChannelName,
  ChannelTarget,
  DeliveryReceipt,
  PushSubscription,
} from '../domain/approval/messages.js';

/** What an adapter sends: an approval message to a recipient, or an alert of an alert rule (docs/alerts.md). */
export type ChannelMessage = ApprovalMessage | AlertMessage;

/**
 * Notification channels for approval gates and alerts. Every adapter implements `ChannelAdapter`; the approval
 * rounds and the alert sender reach them through the `ApprovalChannels` and `AlertChannels` ports (app/ports.ts). An
 * adapter that is not configured hands its messages to the outbox instead of dropping them.
 */
export const CHANNELS: readonly ChannelName[] = Object.freeze(Object.values(GATE_CHANNEL));

export interface ChannelAdapter {
  readonly name: ChannelName;
  /** false when its environment variables are missing: messages then go to the outbox. */
  readonly configured: boolean;
  send(target: ChannelTarget, message: ChannelMessage): Promise<DeliveryReceipt>;
}

/** Keeps messages of unconfigured channels where operators can read them (a table, plus a log line). */
export interface Outbox {
  store(entry: {
    channel: ChannelName;
    target: ChannelTarget;
    message: ChannelMessage;
    rendered: string;
  }): Promise<void>;
}
