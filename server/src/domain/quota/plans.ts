import { PLANS, type Plan } from '@sched/contract';
import type { ChannelName } from '../approval/messages.js';
/**
 * Plans and their limits, one frozen table. `null` means unlimited.
 *
 * Our choices where the spec leaves the assignment open:
 * - SMS: Free 50, Pro 200, Business 1,000 (the spec names only the values 50 and 200).
 * - Chat messages (Slack, Teams): 20,000 on Business, 0 elsewhere, since chat integrations are Business-only.
 * - Web Push messages: 100 / 5,000 / 50,000, like emails (one push costs us about what one email does); the spec
 *   names no push quota, but an unmetered channel would let one account flood the workers with messages.
 * - Max recipients per action: 3 / 10 / 50. AI suggestions a month: 10 / 100 / 1,000.
 * - Team members: 3 / 10 / 50 (the same small counts as recipients: a gate reaches at most that many people).
 * Limits are enforced where the resource is created, with a 422 (a field over its limit) or a 403 (a spent monthly
 * allowance, a feature of another plan) whose message names the limit and the plan; docs/api.md has the table.
 * - max_attempts: the contract accepts 1..20 (the widest plan cap); a value above the plan's cap
 *   (3 / 10 / 20) is refused with 422 on `max_attempts`. The default 5 is lowered to the cap on Free.
 */

export { PLANS, type Plan };

export interface PlanLimits {
  actionsPerMonth: number | null;
  emailsPerMonth: number;
  smsPerMonth: number;
  chatMessagesPerMonth: number;
  pushMessagesPerMonth: number;
  maxAttempts: number;
  horizonDays: number;
  retentionDays: number;
  templates: number;
  chains: boolean;
  slackTeams: boolean;
  maxRecipients: number;
  aiSuggestionsPerMonth: number;
  teamMembers: number;
}

export const PLAN_LIMITS: Readonly<Record<Plan, Readonly<PlanLimits>>> = Object.freeze({
  free: Object.freeze({
    actionsPerMonth: 100,
    emailsPerMonth: 100,
    smsPerMonth: 50,
    chatMessagesPerMonth: 0,
    pushMessagesPerMonth: 100,
    maxAttempts: 3,
    horizonDays: 30,
    retentionDays: 30,
    templates: 3,
    chains: false,
    slackTeams: false,
    maxRecipients: 3,
    aiSuggestionsPerMonth: 10,
    teamMembers: 3,
  }),
  pro: Object.freeze({
    actionsPerMonth: null,
    emailsPerMonth: 5_000,
    smsPerMonth: 200,
    chatMessagesPerMonth: 0,
    pushMessagesPerMonth: 5_000,
    maxAttempts: 10,
    horizonDays: 365,
    retentionDays: 365,
    templates: 25,
    chains: false,
    slackTeams: false,
    maxRecipients: 10,
    aiSuggestionsPerMonth: 100,
    teamMembers: 10,
  }),
  business: Object.freeze({
    actionsPerMonth: null,
    emailsPerMonth: 50_000,
    smsPerMonth: 1_000,
    chatMessagesPerMonth: 20_000,
    pushMessagesPerMonth: 50_000,
    maxAttempts: 20,
    horizonDays: 365,
    retentionDays: 365,
    templates: 100,
    chains: true,
    slackTeams: true,
    maxRecipients: 50,
    aiSuggestionsPerMonth: 1_000,
    teamMembers: 50,
  }),
});

export function isPlan(value: unknown): value is Plan {
  return (PLANS as readonly unknown[]).includes(value);
}

/**
 * The limits in force: the table above, or a self-hosted server's own (SCHED_PLANS_FILE, read and checked at start
 * by config.ts and installed once by startService). Every process of one deployment reads the same file.
 */
let active: Readonly<Record<Plan, Readonly<PlanLimits>>> = PLAN_LIMITS;

export function planLimits(plan: Plan): Readonly<PlanLimits> {
  return active[plan];
}

/** Installs a deployment's plan table (each plan: the defaults with the file's overrides); `null` restores them. */
export function usePlanLimits(overrides: Partial<Record<Plan, Partial<PlanLimits>>> | null): void {
  active = overrides
    ? (Object.fromEntries(
        PLANS.map((plan) => [plan, Object.freeze({ ...PLAN_LIMITS[plan], ...(overrides[plan] ?? {}) })]),
      ) as Record<Plan, Readonly<PlanLimits>>)
    : PLAN_LIMITS;
}

const MONTH_NAMES = Object.freeze([
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const);

export interface MonthPeriod {
  year: number;
  /** 1-12 */
  month: number;
  month_name: string;
  /** The 1st at 00:00 UTC. */
  start: Date;
  /** Exclusive: the 1st of the next month at 00:00 UTC. */
  end: Date;
}

/** The quota period containing `now`: the calendar month in UTC. */
export function monthPeriod(now: Date): MonthPeriod {
  const year = now.getUTCFullYear();
  const monthIndex = now.getUTCMonth();
  return {
    year,
    month: monthIndex + 1,
    month_name: MONTH_NAMES[monthIndex]!,
    start: new Date(Date.UTC(year, monthIndex, 1)),
    end: new Date(Date.UTC(year, monthIndex + 1, 1)),
  };
}

const DEFAULT_MAX_ATTEMPTS = 5;

export type MaxAttemptsResult =
  | { ok: true; maxAttempts: number }
  | { ok: false; field: 'max_attempts'; message: string };

/** The max_attempts an action gets: the requested value within the plan's cap, or the default 5 capped. */
export function effectiveMaxAttempts(requested: number | null | undefined, plan: Plan): MaxAttemptsResult {
  const cap = planLimits(plan).maxAttempts;
  if (requested == null) return { ok: true, maxAttempts: Math.min(DEFAULT_MAX_ATTEMPTS, cap) };
  if (requested > cap) {
    return { ok: false, field: 'max_attempts', message: `Must be at most ${cap} on the ${plan} plan` };
  }
  return { ok: true, maxAttempts: requested };
}

/** The monthly usage counters (`usage_counters.metric`). */
export type UsageMetric = 'actions' | 'emails' | 'sms' | 'chat_messages' | 'push_messages' | 'ai_suggestions';

/**
 * The monthly allowance a message through a notification channel spends: emails, SMS, chat messages (Slack
 * and Teams, Business plan), push. One table for both uses: checked when an approval is created, counted per
 * message when it is sent.
 */
export function channelAllowance(
  plan: Plan,
  channel: ChannelName,
): { metric: UsageMetric; limit: number; label: string } {
  const l = planLimits(plan);
  switch (channel) {
    case 'email':
      return { metric: 'emails', limit: l.emailsPerMonth, label: 'email notifications' };
    case 'sms':
      return { metric: 'sms', limit: l.smsPerMonth, label: 'SMS notifications' };
    case 'slack':
    case 'teams':
      return { metric: 'chat_messages', limit: l.chatMessagesPerMonth, label: 'chat messages' };
    case 'push':
      return { metric: 'push_messages', limit: l.pushMessagesPerMonth, label: 'push notifications' };
  }
}

/** History older than this instant is purged for accounts of `plan` (terminal actions and what hangs off them). */
export function retentionCutoff(plan: Plan, now: Date): Date {
  return new Date(now.getTime() - planLimits(plan).retentionDays * 86_400_000);
}
