import { PLANS, type Plan, retentionCutoff } from '../domain/quota/plans.js';
import { countExpired, emptyPurgeCounts, type PurgeCounts, purgeBatch } from '../persistence/retention.js';
import type { Clock, Store } from './ports.js';

export type { PurgeCounts };

/** Actions per batch: each batch is one short transaction, so no lock is held long. */
const BATCH = 200;

/**
 * History retention (spec 8): terminal actions, their attempts, reminder events and outbox rows older than the
 * plan's retention (30 / 365 / 365 days) go; live actions never do. Run daily by a pg-boss job and by
 * `sched purge`.
 */
export class RetentionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly batchSize = BATCH,
  ) {}

  /** What a purge would delete now, per plan. */
  async dryRun(): Promise<Record<Plan, PurgeCounts>> {
    const now = this.clock();
    const out = {} as Record<Plan, PurgeCounts>;
    for (const plan of PLANS)
      out[plan] = await countExpired(this.store.sql, plan, retentionCutoff(plan, now));
    return out;
  }

  /**
   * Deletes in batches until nothing is left, or until `budgetMs` (of wall time) is spent, when `complete` is false
   * and the caller runs it again; `onBatch` sees each batch's counts (the metric).
   */
  async purge(
    opts: { onBatch?: (counts: PurgeCounts) => void; budgetMs?: number } = {},
  ): Promise<PurgeCounts & { complete: boolean }> {
    const now = this.clock();
    const started = Date.now();
    const total = emptyPurgeCounts();
    for (const plan of PLANS) {
      const cutoff = retentionCutoff(plan, now);
      let more = true;
      while (more) {
        if (opts.budgetMs !== undefined && Date.now() - started > opts.budgetMs)
          return { ...total, complete: false };
        const batch = await this.store.transaction((db) => purgeBatch(db, plan, cutoff, this.batchSize));
        opts.onBatch?.(batch.counts);
        for (const k of Object.keys(total) as (keyof PurgeCounts)[]) total[k] += batch.counts[k];
        more = batch.more;
      }
    }
    return { ...total, complete: true };
  }
}
