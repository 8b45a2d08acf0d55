import { readFileSync } from 'node:fs';
import { MAX_ATTEMPTS_CEILING, PLANS, type Plan } from '@sched/contract';
import { z } from 'zod';
import type { PlanLimits } from './domain/quota/plans.js';

const count = z.number().int().min(0);
const days = z.number().int().min(1).max(36_500);

/** One plan's overrides, in the API's words (the names of GET /v1/quota), every field optional. */
const PlanOverrides = z.strictObject({
  actions_per_month: count.nullable().optional().meta({ description: 'null: unlimited' }),
  emails_per_month: count.optional(),
  sms_per_month: count.optional(),
  chat_messages_per_month: count.optional(),
  push_messages_per_month: count.optional(),
  max_attempts: z.number().int().min(1).max(MAX_ATTEMPTS_CEILING).optional(),
  schedule_horizon_days: days.optional(),
  retention_days: days.optional(),
  templates: count.optional(),
  chains: z.boolean().optional(),
  slack_teams: z.boolean().optional(),
  max_recipients: z.number().int().min(1).optional(),
  team_members: count.optional(),
  ai_suggestions_per_month: count.optional(),
});

const PlansFile = z.strictObject(
  Object.fromEntries(PLANS.map((plan) => [plan, PlanOverrides.optional()])) as Record<
    Plan,
    z.ZodOptional<typeof PlanOverrides>
  >,
);

const FIELD: Record<keyof z.infer<typeof PlanOverrides>, keyof PlanLimits> = {
  actions_per_month: 'actionsPerMonth',
  emails_per_month: 'emailsPerMonth',
  sms_per_month: 'smsPerMonth',
  chat_messages_per_month: 'chatMessagesPerMonth',
  push_messages_per_month: 'pushMessagesPerMonth',
  max_attempts: 'maxAttempts',
  schedule_horizon_days: 'horizonDays',
  retention_days: 'retentionDays',
  templates: 'templates',
  chains: 'chains',
  slack_teams: 'slackTeams',
  max_recipients: 'maxRecipients',
  team_members: 'teamMembers',
  ai_suggestions_per_month: 'aiSuggestionsPerMonth',
};

export type PlanTable = Partial<Record<Plan, Partial<PlanLimits>>>;

/**
 * SCHED_PLANS_FILE: a self-hosted server's own limits, as JSON overriding any field of any plan, for example
 * `{"business": {"schedule_horizon_days": 3650, "max_attempts": 50, "templates": 1000}}`. Read once at start; the
 * error lines name the file and each offending field.
 */
export function readPlansFile(path: string): { table: PlanTable } | { errors: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return { errors: [`SCHED_PLANS_FILE: cannot read ${path} as JSON: ${(err as Error).message}`] };
  }
  const parsed = PlansFile.safeParse(raw);
  if (!parsed.success) {
    return {
      errors: parsed.error.issues.map(
        (i) => `SCHED_PLANS_FILE (${path}): ${[...i.path].join('.') || '(top level)'}: ${i.message}`,
      ),
    };
  }
  const table: PlanTable = {};
  for (const [plan, overrides] of Object.entries(parsed.data) as [Plan, z.infer<typeof PlanOverrides>][]) {
    if (!overrides) continue;
    table[plan] = Object.fromEntries(
      Object.entries(overrides).map(([key, value]) => [FIELD[key as keyof typeof FIELD], value]),
    ) as Partial<PlanLimits>;
  }
  return { table };
}
