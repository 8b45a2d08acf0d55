import { historyCutoff } from '../domain/history/partitions.js';
import { PLANS, type Plan, planLimits, retentionCutoff } from '../domain/quota/plans.js';
import { restoreOriginsInUse } from '../persistence/action-origins.js';
import { countAuditEventsBefore, dropAuditPrefix, nextAuditPrefix } from '../persistence/audit-events.js';
import { AuditSealer } from './audit.js';
import {
  type AccountPass,
  accountsToPurge,
  countExpired,
  emptyPurgeCounts,
  type PurgeCounts,
  type PurgeCutoffs,
  purgeAccountBatch,
  purgeOtherBatch,
  vacuumPurged,
} from '../persistence/retention.js';
import { untilRunningTransactionsEnd } from '../persistence/database.js';
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

/**
 * Actions per batch: each batch is one short transaction (about a tenth of a second at most, with ten million rows
 * behind it), so no lock is held long; a larger batch spends fewer round trips per action (500,000 actions: 36 s in
 * batches of 200, 26 s in batches of 1,000).
 */
const BATCH = 1000;
/** Accounts with expired actions read at a time. */
const ACCOUNT_PAGE = 500;
/** Audit events dropped per transaction (one account's chain at a time). */
const AUDIT_BATCH = 5_000;
/** How long the pass waits for the creates running as it ends (under the 5 s statement timeout of its statement). */
const RACED_CREATES_BOUND_MS = 4_000;

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
    private readonly accountPage = ACCOUNT_PAGE,
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
        ...(await countExpired(this.store.sql, plan, cutoffsOf(plan, now))),
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
    const add = (counts: PurgeCounts) => {
      opts.onBatch?.(counts);
      for (const k of Object.keys(total) as (keyof PurgeCounts)[]) total[k] += counts[k];
    };
    const spent = () => opts.budgetMs !== undefined && elapsed() > opts.budgetMs;
    // The origins whose last action a batch deleted, by account: put back at the end when a create raced the batch.
    const pruned = new Map<string, string[]>();
    const incomplete = async () => {
      await this.restoreRacedOrigins(pruned);
      return { ...total, complete: false };
    };
    for (const plan of PLANS) {
      const cutoff = retentionCutoff(plan, now);
      const cutoffs = cutoffsOf(plan, now);
      // The accounts with expired actions, a page at a time; each account's in batches, each read on from where the
      // last one stopped.
      for (let after: string | null = null, more = true; more; ) {
        const accounts = await accountsToPurge(
          this.store.sql,
          plan,
          cutoffs.history,
          after,
          this.accountPage,
        );
        more = accounts.length === this.accountPage;
        after = accounts.at(-1) ?? null;
        for (const accountId of accounts) {
          for (let pass: AccountPass = { accountId, after: null }; ; ) {
            if (spent()) return await incomplete();
            const batch = await this.store.transaction((db) =>
              purgeAccountBatch(db, cutoffs, this.batchSize, pass),
            );
            add(batch.counts);
            if (batch.prunedOrigins.length > 0)
              pruned.set(accountId, [...(pruned.get(accountId) ?? []), ...batch.prunedOrigins]);
            if (!batch.next) break;
            pass = { accountId, after: batch.next };
          }
        }
      }
      // Then the rest (loose outbox rows, live series' old attempts, chains), whose scans would otherwise be paid
      // again by every batch of actions.
      for (;;) {
        if (spent()) return await incomplete();
        const batch = await this.store.transaction((db) =>
          purgeOtherBatch(db, plan, cutoffs, this.batchSize),
        );
        add(batch.counts);
        if (!batch.more) break;
      }
      for (;;) {
        if (spent()) return await incomplete();
        const dropped = await this.store.transaction(async (db) => {
          const prefix = await nextAuditPrefix(db, plan, cutoff, this.auditBatchSize);
          return prefix ? dropAuditPrefix(db, prefix.accountId, prefix.throughSeq) : 0;
        });
        if (dropped === 0) break;
        add({ ...emptyPurgeCounts(), audit_events: dropped });
      }
    }
    await this.restoreRacedOrigins(pruned);
    // A finished pass leaves no dead rows behind it (a pass cut short by its budget leaves them to the next one's).
    await vacuumPurged(this.store.sql, total);
    return { ...total, complete: true };
  }

  /**
   * A create that added an action to an origin while a batch removed the origin's row may have found the row still
   * there: once the transactions running now have ended (every such create among them), the origins an action aims
   * at again get their row back. Creates are short; past the bound the origins are checked all the same.
   */
  private async restoreRacedOrigins(pruned: ReadonlyMap<string, readonly string[]>): Promise<void> {
    if (pruned.size === 0) return;
    await untilRunningTransactionsEnd(this.store.sql, RACED_CREATES_BOUND_MS);
    for (const [accountId, origins] of pruned) await restoreOriginsInUse(this.store.sql, accountId, origins);
  }
}
