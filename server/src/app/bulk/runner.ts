import { type BulkItemOutcome, REMINDER_EVENT, type ReplayBody } from '@sched/contract';
import { isBulkEligible } from '../../domain/action/bulk.js';
import type { ActionRow } from '../../persistence/actions.js';
import { lockAction } from '../../persistence/actions.js';
import {
  advanceBulkOperation,
  type BulkOperationRow,
  completeBulkOperation,
  lockBulkOperation,
  markBulkItem,
  nextBulkItems,
  orphanedBulkOperations,
  planOf,
  releaseBulkLease,
  takeBulkLease,
} from '../../persistence/bulk-operations.js';
import { sql } from 'kysely';
import { addReminderEvents } from '../../persistence/approvals/reminder-events.js';
import type { Sql } from '../../persistence/database.js';
import type { PauseInput, ResumeInput } from '../actions/pause.js';
import type { Plan } from '../../domain/quota/plans.js';
import { AppError, ValidationError } from '../errors.js';
import type { Clock, Store } from '../ports.js';
import type { Waits } from '../waits.js';

/** What a bulk operation does to one eligible action, each in the caller's transaction on a row it has locked. */
export interface BulkActionOps {
  cancel(db: Sql, row: ActionRow, now: Date): Promise<void>;
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
}

/** The timeline event a bulk change writes; pause and resume write theirs themselves. */
const TIMELINE_EVENT = {
  cancel: REMINDER_EVENT.cancelled,
  retry: REMINDER_EVENT.retried,
  replay: REMINDER_EVENT.replayed,
} as const;

/** Actions per batch: one short transaction each, so a stop or a crash costs at most one batch's work. */
export const BULK_BATCH_SIZE = 200;
/** A worker holds an operation this long past its last batch; past it another worker takes over. */
export const BULK_LEASE_MS = 30_000;
/** One job runs at most this long (well inside the queue's job expiry), then hands on to a fresh job. */
const RUN_BUDGET_MS = 120_000;

export type RunEnd = 'finished' | 'held' | 'budget';

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
    },
  ) {}

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
    const plan = op.operation === 'replay' ? await planOf(this.p.store.sql, op.account_id) : null;
    const principal = plan ? { accountId: op.account_id, plan } : null;
    const started = Date.now();
    for (;;) {
      const more = await this.p.store.transaction((db) => this.batch(db, op.id, principal));
      if (!more) return 'finished';
      if (Date.now() - started > RUN_BUDGET_MS) {
        await releaseBulkLease(this.p.store.sql, op.id);
        await this.p.handOn?.(op.id);
        return 'budget';
      }
    }
  }

  /** Runs the operations no worker holds (a dead worker's, or one whose job was lost). */
  async recover(): Promise<number> {
    let ran = 0;
    for (const id of await orphanedBulkOperations(this.p.store.sql, this.p.clock())) {
      if ((await this.run(id)) !== 'held') ran += 1;
    }
    return ran;
  }

  /** One page; answers whether more may follow. */
  private async batch(
    db: Sql,
    operationId: string,
    principal: { accountId: string; plan: Plan } | null,
  ): Promise<boolean> {
    const op = await lockBulkOperation(db, operationId);
    if (op?.status !== 'running') return false;
    const now = this.p.clock();
    const ids = await nextBulkItems(db, op.id, op.cursor, this.p.batchSize ?? BULK_BATCH_SIZE);
    if (ids.length === 0) {
      await completeBulkOperation(db, op.id, now);
      return false;
    }
    const counts: Record<BulkItemOutcome, number> = { affected: 0, skipped: 0, failed: 0 };
    for (const actionId of ids) {
      const { outcome, detail } = await this.item(db, op, actionId, principal, now);
      if (await markBulkItem(db, op.id, actionId, outcome, detail, now)) counts[outcome] += 1;
    }
    await advanceBulkOperation(db, op.id, {
      counts,
      cursor: ids.at(-1)!,
      leaseUntil: new Date(now.getTime() + this.leaseMs()),
      now,
    });
    return true;
  }

  private async item(
    db: Sql,
    op: BulkOperationRow,
    actionId: string,
    owner: { accountId: string; plan: Plan } | null,
    now: Date,
  ): Promise<{ outcome: BulkItemOutcome; detail: string | null }> {
    const row = await lockAction(db, actionId);
    if (!row || row.account_id !== op.account_id)
      return { outcome: 'skipped', detail: 'the action no longer exists' };
    if (!isBulkEligible(op.operation, { status: row.status, hasRequest: row.request !== null }))
      return { outcome: 'skipped', detail: `the action is ${row.status}` };
    const via = `bulk operation ${op.id}`;
    const options = (op.options ?? {}) as { replay?: ReplayBody; pause?: PauseInput; resume?: ResumeInput };
    const timeline = async (operation: keyof typeof TIMELINE_EVENT, what: string) =>
      addReminderEvents(db, row.id, [
        {
          type: TIMELINE_EVENT[operation],
          actor: null,
          notes: [`${what} by ${via}`, op.note].filter(Boolean).join(': '),
        },
      ]);
    if (op.operation === 'cancel') {
      // Eligible means cancellable, and the row is locked: nothing can refuse it, so no savepoint is needed.
      await this.p.ops.cancel(db, row, now);
      await timeline('cancel', 'cancelled');
      return { outcome: 'affected', detail: null };
    }
    // A refusal of one action (a live action took its idempotency key, the quota is spent) rolls back that action's
    // change alone: the savepoint keeps the rest of the page.
    await sql`savepoint bulk_item`.execute(db);
    try {
      let detail: string | null = null;
      switch (op.operation) {
        case 'retry':
          await this.p.ops.retry(db, row, now);
          await timeline('retry', 'retried');
          break;
        case 'replay':
          detail = await this.p.ops.replay(db, owner!, row, options.replay ?? {});
          await timeline('replay', `replayed as ${detail}`);
          break;
        case 'pause':
          await this.p.ops.pause(db, row, { ...options.pause, note: op.note }, via);
          break;
        case 'resume':
          await this.p.ops.resume(db, row, options.resume ?? {}, via);
          break;
      }
      await sql`release savepoint bulk_item`.execute(db);
      return { outcome: 'affected', detail };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await sql`rollback to savepoint bulk_item`.execute(db);
      const fields = err instanceof ValidationError ? ` ${JSON.stringify(err.errors)}` : '';
      return { outcome: 'failed', detail: `${err.message}${fields}`.slice(0, 1000) };
    }
  }
}
