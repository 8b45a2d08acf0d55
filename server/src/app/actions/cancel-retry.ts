import { isCancellable } from '../../domain/action/states.js';
import {
  type ActionRow,
  actionsSharingKeys,
  findAction,
  findByIdempotencyKey,
  lockName,
} from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import type { CountDestination } from '../domains/guard.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { ActionScheduler, ApprovalGates, CallbackQueue, Clock, Store } from '../ports.js';
import { applyActionEvent, applyActionEventToRows, lockOwnAction } from './transition.js';

/**
 * Cancel and retry of actions: by id, by idempotency key, by coordination key, and the row-level forms a bulk
 * operation and a replacing create use in their own transactions. Every query is scoped to the caller's account.
 */
export class ActionChanges {
  constructor(
    private readonly deps: {
      store: Store;
      scheduler: ActionScheduler;
      clock: Clock;
      /** A manual retry is one more send: counted against the destination threshold (app/domains/guard.ts). */
      countDestination?: CountDestination | undefined;
      /** A declined approval retried asks again (app/approvals/gate.ts). */
      gates: ApprovalGates;
      /** What a state change implies (app/actions/transition.ts). */
      callbacks: CallbackQueue;
    },
  ) {}

  async cancel(accountId: string, id: string): Promise<{ id: string; name: string; status: 'cancelled' }> {
    return this.deps.store.transaction(async (db) => {
      const row = await lockOwnAction(db, accountId, id);
      return this.cancelRow(db, row, this.deps.clock());
    });
  }

  async cancelByIdempotencyKey(
    accountId: string,
    key: string,
  ): Promise<{ id: string; name: string; status: 'cancelled' }> {
    return this.deps.store.transaction(async (db) => {
      await lockName(db, accountId, 'idempotency', key);
      const live = await findByIdempotencyKey(db, accountId, key, { liveOnly: true });
      const row = live ?? (await findByIdempotencyKey(db, accountId, key, { liveOnly: false }));
      if (!row) throw new NotFoundError('action with that idempotency key');
      return this.cancelRow(
        db,
        (await findAction(db, accountId, row.id, { forUpdate: true }))!,
        this.deps.clock(),
      );
    });
  }

  async cancelByCoordinationKey(
    accountId: string,
    key: string,
  ): Promise<{ message: string; cancelled: number; skipped: number; coordination_key: string }> {
    return this.deps.store.transaction(async (db) => {
      await lockName(db, accountId, 'dedup', key);
      const sharing = await actionsSharingKeys(db, accountId, [key]);
      const now = this.deps.clock();
      let cancelled = 0;
      let skipped = 0;
      for (const s of sharing) {
        if (isCancellable(s.status)) {
          const row = (await findAction(db, accountId, s.id, { forUpdate: true }))!;
          if (isCancellable(row.status)) {
            await this.cancelRow(db, row, now);
            cancelled += 1;
            continue;
          }
        }
        skipped += 1;
      }
      if (cancelled === 0) throw new NotFoundError(`cancellable action with dedup key '${key}'`);
      return {
        message: `cancelled ${cancelled} action${cancelled === 1 ? '' : 's'}`,
        cancelled,
        skipped,
        coordination_key: key,
      };
    });
  }

  async retry(
    accountId: string,
    id: string,
  ): Promise<{ id: string; name: string; status: 'resolved'; attempt_count: 0; manual_retry_count: number }> {
    return this.deps.store.transaction(async (db) => {
      const row = await lockOwnAction(db, accountId, id);
      return this.retryRow(db, row, this.deps.clock());
    });
  }

  /**
   * The `manual_retry` transition on a row locked by the caller, in the caller's transaction (the retry endpoint
   * and bulk retries): a new execution cycle starts now.
   */
  async retryRow(
    db: Sql,
    row: ActionRow,
    now: Date,
  ): Promise<{ id: string; name: string; status: 'resolved'; attempt_count: 0; manual_retry_count: number }> {
    // Its chain has moved on from the step: a retry here would run the step without the chain ever hearing.
    if (row.chain_id) {
      throw new ConflictError(
        `this action runs a step of chain ${row.chain_id}; it cannot be retried on its own (create the chain again)`,
      );
    }
    if (row.status !== 'failed')
      throw ValidationError.field('status', `only failed actions can be retried; this one is ${row.status}`);
    if (!row.request) throw ValidationError.field('request', 'this action has no HTTP request to retry');
    const accountId = row.account_id;
    if (row.idempotency_key) {
      await lockName(db, accountId, 'idempotency', row.idempotency_key);
      const holder = await findByIdempotencyKey(db, accountId, row.idempotency_key, { liveOnly: true });
      if (holder) {
        throw new ConflictError(
          `idempotency key '${row.idempotency_key}' now belongs to live action ${holder.id}`,
        );
      }
    }
    // A manual retry is one more send to the destination: it counts against the threshold, as the owner's
    // own act; counted here, its claim does not count it again.
    const counted = await this.deps.countDestination?.(db, accountId, row.request.url, now);
    const manualRetries = row.manual_retry_count + 1;
    await applyActionEvent(
      db,
      row,
      'manual_retry',
      {
        now,
        nextAttemptAt: now,
        set: {
          ...(counted && { counted_occurrence: row.recurrence_index }),
          attempt_count: 0,
          manual_retry_count: manualRetries,
          reschedule_count: 0,
        },
        audit: () => ({ from_status: row.status, manual_retry_count: manualRetries }),
      },
      this.deps,
    );
    // A declined approval asks again: new links, a fresh timeout (app/approvals/outcomes.ts).
    if (row.mode === 'approval') await this.deps.gates.reopen(db, row, now);
    return {
      id: row.id,
      name: row.name,
      status: 'resolved',
      attempt_count: 0,
      manual_retry_count: manualRetries,
    };
  }

  /**
   * Applies the `cancel` transition of the state table to a row locked by the caller; a non-cancellable state is a
   * 409 naming it. Bulk cancels use it too.
   */
  async cancelRow(
    db: Sql,
    row: ActionRow,
    now: Date,
  ): Promise<{ id: string; name: string; status: 'cancelled' }> {
    await this.cancelRows(db, [row], now);
    return { id: row.id, name: row.name, status: 'cancelled' };
  }

  /** `cancelRow` for several rows locked by the caller, in one statement per target state (a bulk cancel's batch). */
  async cancelRows(db: Sql, rows: readonly ActionRow[], now: Date): Promise<void> {
    const refused = rows.find((row) => !isCancellable(row.status));
    if (refused) throw new ConflictError(`action ${refused.id} is ${refused.status} and cannot be cancelled`);
    await applyActionEventToRows(db, rows, 'cancel', { now }, this.deps);
  }
}
