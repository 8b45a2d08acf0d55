import type { Quota } from '@sched/contract';
import { monthPeriod, type Plan, planLimits } from '../domain/quota/plans.js';
import type { Db } from '../persistence/db.js';
import { periodKey, usageOf } from '../persistence/usage-counters.js';
import { AppError } from './errors.js';
import type { Clock } from './ports.js';

/** The plan's monthly action allowance is spent: 429 with Retry-After until the 1st. */
export class QuotaExceededError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}

export class QuotaService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async get(accountId: string, plan: Plan): Promise<Quota> {
    const now = this.clock();
    const period = monthPeriod(now);
    const used = await usageOf(this.db.typed, accountId, periodKey(period));
    const limits = planLimits(plan);
    const ai = used.ai_suggestions ?? 0;
    return {
      period: { year: period.year, month: period.month, month_name: period.month_name },
      actions: { used: used.actions ?? 0, limit: limits.actionsPerMonth },
      sms: { used: used.sms ?? 0, limit: limits.smsPerMonth },
      emails: { used: used.emails ?? 0, limit: limits.emailsPerMonth },
      ai_suggestions: {
        used: ai,
        limit: limits.aiSuggestionsPerMonth,
        percentage:
          limits.aiSuggestionsPerMonth > 0 ? Math.round((ai / limits.aiSuggestionsPerMonth) * 1000) / 10 : 0,
      },
      plan,
      resets_at: period.end.toISOString(),
    };
  }
}
