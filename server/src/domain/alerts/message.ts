import type { AlertThreshold, OperatorEventType } from '@sched/contract';
import type { z } from 'zod';

/**
 * One alert as the channel adapters send it (email, SMS, Slack, Teams, and the outbox when a channel is not
 * configured): the rule, how many events it reports, and one line per sampled event. Plain text: adapters escape it
 * for their format. Built by app/alerts/send.ts from a notification row.
 */
export interface AlertMessage {
  kind: 'alert';
  accountId: string;
  ruleId: string;
  ruleName: string;
  /** A sample asked for by `POST /v1/alert-rules/{id}/test`. */
  test: boolean;
  count: number;
  firstAt: Date;
  lastAt: Date;
  threshold: z.infer<typeof AlertThreshold> | null;
  /** The event types among those reported. */
  events: OperatorEventType[];
  /** One line per sampled event (domain/alerts/rules.ts `describeEvent`). */
  lines: string[];
}

/** `Alert: <rule>`, or `Test alert: <rule>`. */
export function alertHeadline(message: AlertMessage): string {
  const name = message.ruleName.replace(/\s+/g, ' ').trim() || 'alert rule';
  return `${message.test ? 'Test alert' : 'Alert'}: ${name}`;
}

function utc(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The sentence every channel opens with: how many events, of which types, over which time. */
export function alertSummary(message: AlertMessage): string {
  const what = `${message.count} event${message.count === 1 ? '' : 's'} (${message.events.join(', ')})`;
  const when =
    message.firstAt.getTime() === message.lastAt.getTime()
      ? `at ${utc(message.firstAt)}`
      : `between ${utc(message.firstAt)} and ${utc(message.lastAt)}`;
  const threshold = message.threshold
    ? ` The rule alerts at ${message.threshold.count} or more within ${message.threshold.window}.`
    : '';
  const test = message.test ? 'This is a test of the rule; the events below are examples. ' : '';
  return `${test}${what} ${when}.${threshold}`;
}

/** `Showing 5 of 12 events.` when the sample is shorter than the count. */
export function alertSampleNote(message: AlertMessage): string | undefined {
  return message.lines.length < message.count
    ? `Showing ${message.lines.length} of ${message.count} events.`
    : undefined;
}
