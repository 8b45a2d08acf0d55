import { partitionPlan } from '../domain/history/partitions.js';
import { PLANS, planLimits } from '../domain/quota/plans.js';
import {
  attemptMonths,
  attemptPartitionName,
  createAttemptPartition,
  dropAttemptPartition,
  isLockBusy,
  lockAttemptPartitions,
  lockForPartitionChange,
} from '../persistence/partitions.js';
import { realDeadline } from './clock.js';
import type { Clock, Store } from './ports.js';

/** Tries at taking the attempt log's lock (each waits at most 200 ms), and the pause between them: ten seconds in all. */
const LOCK_TRIES = 20;
const LOCK_PAUSE_MS = 300;

/**
 * No attempt is kept longer than the longest retention of any plan (the deployment's table, SCHED_PLANS_FILE, read
 * when it runs), so a month past it can go whole.
 */
export const longestRetentionDays = () => Math.max(...PLANS.map((p) => planLimits(p).retentionDays));

/**
 * The attempt log's months: the current one and the next two exist before an attempt needs them, and a month whose
 * every attempt is past every plan's retention is dropped whole. Idempotent, and safe when several processes run it
 * at once (they take turns on one lock). Run at every start and by the daily retention run.
 */
export class AttemptPartitions {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates the missing months ahead and, unless `drop` is false, drops those behind; answers the partitions. Throws
   * when the attempt log stays busy for every try (the next run, daily and at every start, tries again).
   */
  async maintain(opts: { drop?: boolean } = {}): Promise<{ created: string[]; dropped: string[] }> {
    const now = this.clock();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store.transaction(async (db) => {
          await lockAttemptPartitions(db);
          const plan = partitionPlan(now, await attemptMonths(db), longestRetentionDays());
          const drop = opts.drop === false ? [] : plan.drop;
          if (plan.create.length === 0 && drop.length === 0) return { created: [], dropped: [] };
          await lockForPartitionChange(db);
          for (const month of plan.create) await createAttemptPartition(db, month);
          for (const month of drop) await dropAttemptPartition(db, month);
          return { created: plan.create.map(attemptPartitionName), dropped: drop.map(attemptPartitionName) };
        });
      } catch (err) {
        if (!isLockBusy(err) || attempt >= LOCK_TRIES) throw err;
        await realDeadline(LOCK_PAUSE_MS);
      }
    }
  }
}
