import type { Quota } from '@sched/contract';
import type { ChannelName } from '../domain/approval/messages.js';
import { channelAllowance, monthPeriod, type Plan, planLimits } from '../domain/quota/plans.js';
import type { Sql } from '../persistence/database.js';
import { consumeUsage, countTeamMembers, periodKey, usageOf } from '../persistence/usage-counters.js';
import { AppError, ForbiddenError } from './errors.js';
import type { Clock, Store } from './ports.js';
import { TickBatch } from './tick-batch.js';

/**
 * A monthly allowance of the plan is spent: 403 naming the limit and the plan (a plan limit, not a rate limit: only
 * the 1st of the month or another plan lifts it), with Retry-After until the 1st.
 */
export class QuotaExceededError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(403, message, 'quota_exhausted');
  }
}

/**
 * Refuses an approval whose channels' monthly allowance is already spent (the send would be refused anyway), so the
 * caller learns it at create rather than from a silent gate. Each message is still counted when it is sent.
 */
export async function assertChannelAllowances(
  db: Sql,
  accountId: string,
  plan: Plan,
  channels: Iterable<ChannelName>,
  now: Date,
): Promise<void> {
  const period = monthPeriod(now);
  let used: Awaited<ReturnType<typeof usageOf>> | undefined;
  for (const channel of new Set(channels)) {
    const allowance = channelAllowance(plan, channel);
    used ??= await usageOf(db, accountId, periodKey(period));
    if ((used[allowance.metric] ?? 0) >= allowance.limit) {
      throw new QuotaExceededError(
        `the ${plan} plan allows ${allowance.limit} ${allowance.label} a month and they are spent; the quota resets ${period.end.toISOString()}`,
        Math.max(1, Math.ceil((period.end.getTime() - now.getTime()) / 1000)),
      );
    }
  }
}

/** Refuses a team member past the plan's count: 403 naming the limit and the plan. */
export async function assertTeamMemberRoom(db: Sql, accountId: string, plan: Plan): Promise<void> {
  const limit = planLimits(plan).teamMembers;
  if ((await countTeamMembers(db, accountId)) >= limit) {
    throw new ForbiddenError(
      `the ${plan} plan allows ${limit} team members; remove one or change plan`,
      'plan_limit_reached',
    );
  }
}

export class QuotaService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The creates this process counts after their commit, written before a read so it shows them. */
    private readonly lateCounts?: Pick<LateActionCounts, 'settled'>,
  ) {}

  async get(accountId: string, plan: Plan): Promise<Quota> {
    await this.lateCounts?.settled();
    const now = this.clock();
    const period = monthPeriod(now);
    const [used, teamMembers] = await Promise.all([
      usageOf(this.store.sql, accountId, periodKey(period)),
      countTeamMembers(this.store.sql, accountId),
    ]);
    const limits = planLimits(plan);
    const ai = used.ai_suggestions ?? 0;
    return {
      period: { year: period.year, month: period.month, month_name: period.month_name },
      actions: { used: used.actions ?? 0, limit: limits.actionsPerMonth },
      sms: { used: used.sms ?? 0, limit: limits.smsPerMonth },
      emails: { used: used.emails ?? 0, limit: limits.emailsPerMonth },
      chat_messages: { used: used.chat_messages ?? 0, limit: limits.chatMessagesPerMonth },
      team_members: { used: teamMembers, limit: limits.teamMembers },
      ai_suggestions: {
        used: ai,
        limit: limits.aiSuggestionsPerMonth,
        percentage:
          limits.aiSuggestionsPerMonth > 0 ? Math.round((ai / limits.aiSuggestionsPerMonth) * 1000) / 10 : 0,
      },
      plan,
      limits: {
        max_attempts: limits.maxAttempts,
        schedule_horizon_days: limits.horizonDays,
        retention_days: limits.retentionDays,
        max_recipients: limits.maxRecipients,
        templates: limits.templates,
        chains: limits.chains,
        slack_teams: limits.slackTeams,
      },
      resets_at: period.end.toISOString(),
    };
  }
}

/** How long the first create counted after its commit waits for others before their sum is written. */
const LATE_COUNT_WAIT_MS = 50;

/**
 * Creates of plans without a monthly cap, counted after their commit on a connection that does not wait for the
 * disk flush (that row is updated by every create of the account, and the count only reports), summed per account
 * and month over LATE_COUNT_WAIT_MS: under load, a statement every 50 ms instead of one per turn of the event loop.
 * The create does not wait for its count. This process's own reads of the usage wait for it (`settled`); another
 * process's read may miss the creates of the last 50 ms or so, and a crash loses them, as it loses any count made
 * after a commit.
 */
export class LateActionCounts {
  private readonly batch = new TickBatch<{ accountId: string; period: string; amount: number }, void>(
    async (uses) => {
      const sums = new Map<string, { accountId: string; period: string; amount: number }>();
      for (const u of uses) {
        const key = `${u.accountId}/${u.period}`;
        const sum = sums.get(key) ?? { ...u, amount: 0 };
        sum.amount += u.amount;
        sums.set(key, sum);
      }
      const counters = this.counters();
      await Promise.all(
        [...sums.values()].map((u) => consumeUsage(counters, { ...u, metric: 'actions', limit: null })),
      );
      return uses.map(() => undefined);
    },
    500,
    Number.POSITIVE_INFINITY,
    LATE_COUNT_WAIT_MS,
  );

  constructor(
    private readonly counters: () => Sql,
    /** A count that could not be written (the create it counts stands). */
    private readonly failed: (err: unknown) => void,
  ) {}

  add(accountId: string, period: string, amount = 1): void {
    this.batch.add({ accountId, period, amount }).catch(this.failed);
  }

  /** Resolves once every count added so far is written (or has failed). */
  settled(): Promise<void> {
    return this.batch.drain();
  }
}
