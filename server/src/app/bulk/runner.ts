import { type BulkItemOutcome, REMINDER_EVENT, type ReplayBody, type RunNowBody } from '@sched/contract';
import { isBulkEligible } from '../../domain/action/bulk.js';
import type { ActionRow } from '../../persistence/actions.js';
import { lockActions } from '../../persistence/actions.js';
import {
  advanceBulkOperation,
  type BulkOperationRow,
  completeBulkOperation,
  lockBulkOperation,
  markBulkItems,
  nextBulkItems,
  orphanedBulkOperations,
  planOf,
  releaseBulkLease,
  takeBulkLease,
} from '../../persistence/bulk-operations.js';
import { addTimelineEvents, type NewTimelineEvent } from '../../persistence/timeline.js';
import { type Sql, withSavepoint } from '../../persistence/database.js';
import type { PauseInput } from '../../domain/action/pause.js';
import type { ResumeInput } from '../actions/pause.js';
import type { Plan } from '../../domain/quota/plans.js';
import { AppError, ValidationError } from '../errors.js';
import { stopwatch } from '../clock.js';
import type { Clock, OperatorEvents, Store } from '../ports.js';
import type { Waits } from '../waits.js';

/** What a bulk operation does to one eligible action, each in the caller's transaction on a row it has locked. */
export interface BulkActionOps {
  /** Cancels a page of cancellable actions at once. */
  cancel(db: Sql, rows: readonly ActionRow[], now: Date): Promise<void>;
  retry(db: Sql, row: ActionRow, now: Date): Promise<void>;
  /** Answers the new action's id. */
  replay(
    db: Sql,
    owner: { accountId: string; plan: Plan },
    row: ActionRow,
    overrides: ReplayBody,
  ): Promise<string>;
  /** `via` names the operation on the timeline (the pause use case writes its own event). */
  pause(db: Sql, row: ActionRow, input: PauseInput, via: string): Promise<void>;
  resume(db: Sql, row: ActionRow, input: ResumeInput, via: string): Promise<void>;
  /** Moves a pending action by `offsetMs` (the reschedule use case audits it, naming the operation). */
  reschedule(
    db: Sql,
    owner: { accountId: string; plan: Plan },
    row: ActionRow,
    offsetMs: number,
    via: string,
  ): Promise<void>;
  run(db: Sql, row: ActionRow, input: RunNowBody, via: string): Promise<void>;
}

/** The timeline event a bulk change writes; pause and resume write theirs themselves. */
const TIMELINE_EVENT = {
  cancel: REMINDER_EVENT.cancelled,
  retry: REMINDER_EVENT.retried,
  replay: REMINDER_EVENT.replayed,
} as const;

type BulkItemResult = { actionId: string; outcome: BulkItemOutcome; detail: string | null };
type TimelineEvent = NewTimelineEvent & { actionId: string };

/** Actions per batch: one short transaction each, so a stop or a crash costs at most one batch's work. */
export const BULK_BATCH_SIZE = 500;
/**
 * A worker holds an operation this long past its last page; past it another worker takes over. Short, because
 * correctness does not rest on it (the operation's row lock orders pages, items are marked once): it only bounds
 * how long a dead worker's operation waits.
 */
export const BULK_LEASE_MS = 10_000;
/** One job runs at most this long (well inside the queue's job expiry), then hands on to a fresh job. */
const RUN_BUDGET_MS = 120_000;

export type RunEnd = 'finished' | 'held' | 'budget' | 'stopping';

/**
 * Works through a bulk operation's snapshot in keyset pages (action id order after a cursor), one transaction per
 * page: the operation's row is locked, each action is locked and changed, its item marked done and the counts and
 * cursor advanced, all committed together. A worker killed mid-page loses that page's transaction and nothing else;
 * the item rows say what is done, so whoever resumes (the same job retried, or `recover` on any worker once the
 * lease lapsed) never processes an action twice.
 */
export class BulkRunner {
  constructor(
    private readonly p: {
      store: Store;
      ops: BulkActionOps;
      clock: Clock;
      waits: Waits;
      batchSize?: number;
      /** Runs a follow-up for an operation handed on when a run's time budget is spent. */
      handOn?: (operationId: string) => Promise<void>;
      /** Where `bulk_operation.completed` is recorded for alert rules, in the completing transaction. */
      events?: OperatorEvents;
    },
  ) {}

  private stopping = false;

  /** The process is shutting down: each run ends after its page in progress and lets go of its lease at once. */
  stop(): void {
    this.stopping = true;
  }

  private leaseMs(): number {
    return this.p.waits.wait(BULK_LEASE_MS, 2_000);
  }

  async run(operationId: string): Promise<RunEnd> {
    const now = this.p.clock();
    const op = await takeBulkLease(this.p.store.sql, operationId, {
      now,
      until: new Date(now.getTime() + this.leaseMs()),
    });
    if (!op) return 'held';
    if (this.stopping) {
      await releaseBulkLease(this.p.store.sql, op.id);
      return 'stopping';
    }
    const plan =
      op.operation === 'replay' || op.operation === 'reschedule'
        ? await planOf(this.p.store.sql, op.account_id)
        : null;
    const principal = plan ? { accountId: op.account_id, plan } : null;
    const elapsed = stopwatch();
    for (;;) {
      const more = await this.p.store.transaction((db) => this.batch(db, op.id, principal));
      if (!more) return 'finished';
      if (this.stopping) {
        // Another worker's sweep carries on from the cursor without waiting for the lease to run out.
        await releaseBulkLease(this.p.store.sql, op.id);
        return 'stopping';
      }
      if (elapsed() > RUN_BUDGET_MS) {
        await releaseBulkLease(this.p.store.sql, op.id);
        await this.p.handOn?.(op.id);
        return 'budget';
      }
    }
  }

  /**
   * Runs the operations no worker holds (a dead worker's, or one whose job was lost); answers how many it ran and
   * whether any operation was running (with none, the sweep may wait longer).
   */
  async recover(): Promise<{ ran: number; running: boolean }> {
    let ran = 0;
    const { orphaned, running } = await orphanedBulkOperations(this.p.store.sql, this.p.clock());
    for (const id of orphaned) {
      if ((await this.run(id)) !== 'held') ran += 1;
    }
    return { ran, running };
  }

  /** One page; answers whether more may follow. */
  private async batch(
    db: Sql,
    operationId: string,
    owner: { accountId: string; plan: Plan } | null,
  ): Promise<boolean> {
    const op = await lockBulkOperation(db, operationId);
    if (op?.status !== 'running') return false;
    const now = this.p.clock();
    const ids = await nextBulkItems(db, op.id, op.cursor, this.p.batchSize ?? BULK_BATCH_SIZE);
    if (ids.length === 0) {
      await completeBulkOperation(db, op.id, now);
      await this.p.events?.record(db, {
        account_id: op.account_id,
        type: 'bulk_operation.completed',
        at: now,
        subject: { type: 'bulk_operation', id: op.id },
        details: {
          operation: op.operation,
          note: op.note,
          matched: op.matched,
          processed: op.processed,
          affected: op.affected,
          skipped: op.skipped,
          failed: op.failed,
        },
      });
      return false;
    }
    // The page's actions, locked in id order (as every locker of several actions does).
    const rows = new Map((await lockActions(db, ids)).map((r) => [r.id, r]));
    const via = `bulk operation ${op.id}`;
    const results: BulkItemResult[] = [];
    const timeline: TimelineEvent[] = [];
    const eligible: ActionRow[] = [];
    for (const id of ids) {
      const row = rows.get(id);
      if (!row || row.account_id !== op.account_id)
        results.push({ actionId: id, outcome: 'skipped', detail: 'the action no longer exists' });
      else if (!isBulkEligible(op.operation, { status: row.status, hasRequest: row.request !== null }))
        results.push({ actionId: id, outcome: 'skipped', detail: `the action is ${row.status}` });
      else eligible.push(row);
    }
    if (op.operation === 'cancel') {
      // Eligible means cancellable and the rows are locked: nothing can refuse one, so the page is one statement.
      await this.p.ops.cancel(db, eligible, now);
      for (const row of eligible) {
        results.push({ actionId: row.id, outcome: 'affected', detail: null });
        timeline.push(this.event(row.id, 'cancel', `cancelled by ${via}`, op.note));
      }
    } else {
      for (const row of eligible) results.push(await this.item(db, op, row, owner, now, via, timeline));
    }
    const counts = await markBulkItems(db, op.id, results, now);
    await addTimelineEvents(db, timeline);
    await advanceBulkOperation(db, op.id, {
      counts,
      cursor: ids.at(-1)!,
      leaseUntil: new Date(now.getTime() + this.leaseMs()),
      now,
    });
    return true;
  }

  private event(
    actionId: string,
    operation: keyof typeof TIMELINE_EVENT,
    what: string,
    note: string | null,
  ): TimelineEvent {
    return {
      actionId,
      type: TIMELINE_EVENT[operation],
      actor: null,
      notes: [what, note].filter(Boolean).join(': '),
    };
  }

  /**
   * One action of a retry, replay, pause or resume. A refusal of one action (a live action took its idempotency
   * key, the quota is spent) rolls back that action's change alone: the savepoint keeps the rest of the page.
   */
  private async item(
    db: Sql,
    op: BulkOperationRow,
    row: ActionRow,
    owner: { accountId: string; plan: Plan } | null,
    now: Date,
    via: string,
    timeline: TimelineEvent[],
  ): Promise<BulkItemResult> {
    const options = (op.options ?? {}) as {
      replay?: ReplayBody;
      pause?: PauseInput;
      resume?: ResumeInput;
      reschedule?: { offset_ms: number };
      run?: RunNowBody;
    };
    try {
      const { detail, event } = await withSavepoint(db, async () => {
        switch (op.operation) {
          case 'retry':
            await this.p.ops.retry(db, row, now);
            return { detail: null, event: this.event(row.id, 'retry', `retried by ${via}`, op.note) };
          case 'replay': {
            const made = await this.p.ops.replay(db, owner!, row, options.replay ?? {});
            return {
              detail: made,
              event: this.event(row.id, 'replay', `replayed as ${made} by ${via}`, op.note),
            };
          }
          case 'pause':
            // The pause use case writes its own timeline event, naming the operation through `via`.
            await this.p.ops.pause(db, row, { ...options.pause, note: op.note }, via);
            return { detail: null, event: null };
          case 'resume':
            await this.p.ops.resume(db, row, options.resume ?? {}, via);
            return { detail: null, event: null };
          case 'reschedule':
            await this.p.ops.reschedule(db, owner!, row, options.reschedule?.offset_ms ?? 0, via);
            return { detail: null, event: null };
          case 'run':
            await this.p.ops.run(db, row, options.run ?? {}, via);
            return { detail: null, event: null };
          default:
            throw new Error(`${op.operation} is done a page at a time`);
        }
      });
      if (event) timeline.push(event);
      return { actionId: row.id, outcome: 'affected', detail };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const fields = err instanceof ValidationError ? ` ${JSON.stringify(err.errors)}` : '';
      return { actionId: row.id, outcome: 'failed', detail: `${err.message}${fields}`.slice(0, 1000) };
    }
  }
}
