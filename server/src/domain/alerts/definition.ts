import {
  ALERT_DEFAULTS,
  ALERT_LIMITS,
  type AlertFilter,
  type AlertThreshold,
  type OperatorEventType,
} from '@sched/contract';
import type { z } from 'zod';
import { hostOfOrigin } from '../destinations/origin.js';
import { parseDuration } from '../schedule/duration.js';
import type { AlertEvent, RuleTerms } from './rules.js';

/** A rule's definition as stored: durations in the API's grammar, absent ones null (their defaults apply). */
export interface RuleDefinition {
  enabled: boolean;
  events: OperatorEventType[];
  filter: z.infer<typeof AlertFilter> | null;
  threshold: z.infer<typeof AlertThreshold> | null;
  group_wait: string | null;
  repeat_every: string | null;
  late_after: string | null;
}

const BOUNDS = {
  group_wait: { max: ALERT_LIMITS.group_wait_max_ms, label: '1h' },
  repeat_every: { max: ALERT_LIMITS.repeat_every_max_ms, label: '7d' },
  'threshold.window': { max: ALERT_LIMITS.window_max_ms, label: '7d' },
} as const;

/**
 * The checks of a whole definition the schema cannot make (dotted path -> messages): duration bounds, and
 * `late_after` only with the `delivery.late` event.
 */
export function definitionErrors(d: RuleDefinition): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (path: string, message: string) => {
    errors[path] = [...(errors[path] ?? []), message];
  };
  const durations: [keyof typeof BOUNDS, string | null | undefined][] = [
    ['group_wait', d.group_wait],
    ['repeat_every', d.repeat_every],
    ['threshold.window', d.threshold?.window],
  ];
  for (const [path, value] of durations) {
    if (value == null) continue;
    const ms = parseDuration(value);
    if (ms === null || ms > BOUNDS[path].max) add(path, `must be at most ${BOUNDS[path].label}`);
  }
  if (d.late_after !== null) {
    if (!d.events.includes('delivery.late')) add('late_after', 'applies only with the delivery.late event');
    const ms = parseDuration(d.late_after);
    if (ms === null || ms < ALERT_LIMITS.late_after_min_ms || ms > ALERT_LIMITS.late_after_max_ms)
      add('late_after', 'must be from 1s to 1d');
  }
  return errors;
}

function ms(value: string | null, fallback: string): number {
  return parseDuration(value ?? fallback) ?? parseDuration(fallback)!;
}

/** `late_after` in force: the rule's, or the default when it watches `delivery.late`; null otherwise. */
export function lateAfterOf(d: Pick<RuleDefinition, 'events' | 'late_after'>): string | null {
  return d.events.includes('delivery.late') ? (d.late_after ?? ALERT_DEFAULTS.late_after) : null;
}

/**
 * What the evaluation reads of a definition, with the defaults filled in. `scale` turns a chosen wait into real time
 * (app/waits.ts: SCHED_TIME_SCALE in tests); `late_after` is a measured lateness, not a wait, and is not scaled.
 */
export function termsOf(d: RuleDefinition, createdAt: Date, scale: (ms: number) => number): RuleTerms {
  const lateAfter = lateAfterOf(d);
  return {
    enabled: d.enabled,
    events: d.events,
    filter: d.filter,
    threshold: d.threshold
      ? { count: d.threshold.count, windowMs: scale(ms(d.threshold.window, d.threshold.window)) }
      : null,
    lateAfterMs: lateAfter === null ? null : ms(lateAfter, ALERT_DEFAULTS.late_after),
    groupWaitMs: scale(ms(d.group_wait, ALERT_DEFAULTS.group_wait)),
    repeatEveryMs: scale(ms(d.repeat_every, ALERT_DEFAULTS.repeat_every)),
    createdAt,
  };
}

/** The smallest `late_after` among rules watching late deliveries, in milliseconds; null when none does. */
export function smallestLateAfter(
  rules: readonly Pick<RuleDefinition, 'events' | 'late_after'>[],
): number | null {
  let smallest: number | null = null;
  for (const rule of rules) {
    const lateAfter = lateAfterOf(rule);
    if (lateAfter === null) continue;
    const value = ms(lateAfter, ALERT_DEFAULTS.late_after);
    if (smallest === null || value < smallest) smallest = value;
  }
  return smallest;
}

/**
 * An example of each event type, for `POST /v1/alert-rules/{id}/test`: what a real alert of the rule would show, about
 * the destination its filter names (host, origin) when it names one.
 */
export function exampleEvent(
  type: OperatorEventType,
  at: Date,
  filter: { destination_host?: string | undefined; destination_origin?: string | undefined } | null,
): AlertEvent {
  const origin = filter?.destination_origin ?? `https://${filter?.destination_host ?? 'api.example.com'}`;
  const destination = filter?.destination_host ?? hostOfOrigin(origin);
  const action = { type: 'action' as const, id: '00000000-0000-4000-8000-000000000000' };
  switch (type) {
    case 'action.failed':
      return {
        type,
        at,
        destination_host: destination,
        subject: action,
        details: {
          name: 'example action',
          mode: 'webhook',
          origin,
          attempts: 5,
          status_code: 503,
          error: 'HTTP 503',
        },
      };
    case 'approval.expired':
      return {
        type,
        at,
        destination_host: null,
        subject: action,
        details: { name: 'example approval', mode: 'approval', on_timeout: 'cancel', timeout: '7d' },
      };
    case 'delivery.late':
      return {
        type,
        at,
        destination_host: destination,
        subject: action,
        details: {
          name: 'example action',
          mode: 'webhook',
          origin,
          lateness_ms: 95_000,
          held_ms: 90_000,
          held_by: 'flow_control',
        },
      };
    case 'bulk_operation.completed':
      return {
        type,
        at,
        destination_host: null,
        subject: { type: 'bulk_operation', id: '00000000-0000-4000-8000-000000000000' },
        details: { operation: 'retry', matched: 12, affected: 10, skipped: 2, failed: 0 },
      };
    case 'destination.circuit_opened':
    case 'destination.circuit_closed':
    case 'destination.disabled':
      return {
        type,
        at,
        destination_host: destination,
        subject: { type: 'destination', id: origin },
        details: { host: destination, origin },
      };
    case 'notification.undeliverable':
      return {
        type,
        at,
        destination_host: null,
        subject: action,
        details: {
          name: 'example approval',
          mode: 'approval',
          channels: ['sms'],
          reason:
            'sms is not configured on this server (set SCHED_TWILIO_ACCOUNT_SID, SCHED_TWILIO_AUTH_TOKEN, SCHED_TWILIO_FROM)',
          recipients: 1,
        },
      };
  }
}
