import { historyCutoff } from '../domain/history/partitions.js';
import { PLANS, type Plan, planLimits, retentionCutoff } from '../domain/quota/plans.js';
import { countAuditEventsBefore, dropAuditPrefix, nextAuditPrefix } from '../persistence/audit-events.js';
import { AuditSealer } from './audit.js';
import {
  countExpired,
  emptyPurgeCounts,
  expiredIdRanges,
  type PurgeCounts,
  type PurgeCutoffs,
  purgeBatch,
  vacuumPurged,
} from '../persistence/retention.js';
import { stopwatch } from './clock.js';
import { AttemptPartitions, longestRetentionDays } from './partitions.js';
import type { Clock, Store } from './ports.js';

export type { PurgeCounts };

/**
 * A plan's cutoffs at `now`: its retention, except that the history of a plan keeping it as long as any waits for its
 * month of attempts to be dropped whole (domain/history/partitions.ts `historyCutoff`).
 */
function cutoffsOf(plan: Plan, now: Date): PurgeCutoffs {
  return {
    history: historyCutoff(now, planLimits(plan).retentionDays, longestRetentionDays()),
    other: retentionCutoff(plan, now),
  };
}

/** Actions per batch: each batch is one short transaction, so no lock is held long. */
const BATCH = 200;
/** Audit events dropped per transaction (one account's chain at a time). */
const AUDIT_BATCH = 5_000;

/**
 * History retention: terminal actions, their attempts, reminder events and outbox rows older than the
 * plan's retention (30 / 365 / 365 days) go; live actions never do. Audit events older than the same cutoff go only
 * as a whole prefix of their account's chain, the last dropped hash kept as the chain's new anchor, so `verify`
 * still checks everything kept (docs/audit.md). Run daily by a pg-boss job and by `sched purge`.
 */
export class RetentionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly batchSize = BATCH,
    private readonly auditBatchSize = AUDIT_BATCH,
  ) {}

  /** What a purge would delete now, per plan. */
  async dryRun(): Promise<Record<Plan, PurgeCounts>> {
    const now = this.clock();
    // Pending audit events are chained first, as the worker does every second: the count is of the chain.
    await new AuditSealer(this.store).sealAll();
    const out = {} as Record<Plan, PurgeCounts>;
    for (const plan of PLANS) {
      const cutoff = retentionCutoff(plan, now);
      out[plan] = {
        ...(await countExpired(this.store.sql, plan, cutoffsOf(plan, now), now)),
        audit_events: await countAuditEventsBefore(this.store.sql, plan, cutoff),
      };
    }
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
    const elapsed = stopwatch();
    const total = emptyPurgeCounts();
    // Months of attempts past every plan's retention go whole first, so no row of theirs is deleted one by one.
    await new AttemptPartitions(this.store, this.clock).maintain();
    // Pending audit events first: a prefix is cut from the chain, so what is old must be on it.
    await new AuditSealer(this.store).sealAll();
    for (const plan of PLANS) {
      const cutoff = retentionCutoff(plan, now);
      // The expired actions' id ranges, each read on from where the last batch stopped; then the rest (loose outbox
      // rows, live series' old attempts, chains), whose scans would otherwise be paid again by every batch of actions.
      const cutoffs = cutoffsOf(plan, now);
      const ranges = expiredIdRanges(cutoffs.history, now);
      let range = ranges.shift() ?? null;
      for (;;) {
        if (opts.budgetMs !== undefined && elapsed() > opts.budgetMs) return { ...total, complete: false };
        const at = range;
        const batch = await this.store.transaction((db) => purgeBatch(db, plan, cutoffs, this.batchSize, at));
        opts.onBatch?.(batch.counts);
        for (const k of Object.keys(total) as (keyof PurgeCounts)[]) total[k] += batch.counts[k];
        if (at)
          range =
            batch.actionsFull && batch.lastActionId
              ? { ...at, after: batch.lastActionId }
              : (ranges.shift() ?? null);
        else if (!batch.more) break;
      }
      for (;;) {
        if (opts.budgetMs !== undefined && elapsed() > opts.budgetMs) return { ...total, complete: false };
        const dropped = await this.store.transaction(async (db) => {
          const prefix = await nextAuditPrefix(db, plan, cutoff, this.auditBatchSize);
          return prefix ? dropAuditPrefix(db, prefix.accountId, prefix.throughSeq) : 0;
        });
        if (dropped === 0) break;
        const counts = { ...emptyPurgeCounts(), audit_events: dropped };
        opts.onBatch?.(counts);
        total.audit_events += dropped;
      }
    }
    // A finished pass leaves no dead rows behind it (a pass cut short by its budget leaves them to the next one's).
    await vacuumPurged(this.store.sql, total);
    return { ...total, complete: true };
  }
}
