import { randomUUID } from 'node:crypto';
import type { Action, ActionCreateParsed, ActionSummary } from '@sched/contract';
import { assertTransition, isCancellable } from '../../domain/action/states.js';
import { decideOnCreate, SKIP_REASON } from '../../domain/coordination/dedup.js';
import { destinationDomain } from '../../domain/domains/rules.js';
import { monthPeriod, planLimits } from '../../domain/quota/plans.js';
import {
  type ActionRow,
  actionsSharingKeys,
  attemptsOf,
  coordinationKeys,
  findAction,
  findByIdempotencyKey,
  insertAction,
  insertActions,
  listActions,
  lockName,
  type NewAction,
  replaysOf,
  updateAction,
} from '../../persistence/actions.js';
import { bulkEventsOf } from '../../persistence/bulk-operations.js';
import { attachmentsOf, insertAttachments } from '../../persistence/approvals/attachments.js';
import { insertRecipients, recipientsOf } from '../../persistence/approvals/recipients.js';
import { reminderEventsOf } from '../../persistence/approvals/reminder-events.js';
import type { Sql } from '../../persistence/database.js';
import { resolveGate } from '../approvals/gate.js';
import { reopenGate } from '../approvals/outcomes.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import { type CountDestination, isUncountedDestination } from '../domains/guard.js';
import type { Principal } from '../accounts.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { type Page, pageOf, pageWindow } from '../pagination.js';
import type { ActionScheduler, Clock, Store } from '../ports.js';
import { assertChannelAllowances, QuotaExceededError } from '../quota.js';
import { TickBatch } from '../tick-batch.js';
import { type ActionFilterQuery, toActionFilter } from './filter.js';
import { prepareAction } from './prepare.js';
import { actionSummary, actionView } from './view.js';

export type CreateResult =
  | { kind: 'created'; action: Action }
  | { kind: 'skipped'; action: Action; reason: string };

export interface ListQuery extends ActionFilterQuery {
  page: number;
  per_page: number;
}

/** Use cases of webhook actions: create, read, cancel, retry. Every query is scoped to the caller's account. */
export class ActionService {
  /** The one-statement creates of one turn of the event loop, inserted together (group commit). */
  private readonly simpleInserts = new TickBatch<NewAction, ActionRow>((rows) =>
    insertActions(this.store.sql, rows),
  );

  /** Creates counted after their commit (plans without a quota), summed per account and month for one turn. */
  private readonly lateCounts = new TickBatch<{ accountId: string; period: string }, void>(async (uses) => {
    const sums = new Map<string, { accountId: string; period: string; amount: number }>();
    for (const u of uses) {
      const key = `${u.accountId}/${u.period}`;
      const sum = sums.get(key) ?? { ...u, amount: 0 };
      sum.amount += 1;
      sums.set(key, sum);
    }
    const counters = (this.options.counters ?? this.store).sql;
    await Promise.all(
      [...sums.values()].map((u) => consumeUsage(counters, { ...u, metric: 'actions', limit: null })),
    );
    return uses.map(() => undefined);
  });

  constructor(
    private readonly store: Store,
    private readonly scheduler: ActionScheduler,
    private readonly clock: Clock,
    private readonly options: {
      allowPrivateDestinations: boolean;
      /**
       * Where the usage of plans without a quota is counted after the commit: a connection that does not wait for
       * the disk flush, since that row is updated by every create of the account and the count only reports.
       */
      counters?: Store;
      /** The destination-domain threshold (app/domains/guard.ts), counted in the create's transaction. */
      countDestination?: CountDestination;
    },
  ) {}

  async create(principal: Principal, body: ActionCreateParsed): Promise<CreateResult> {
    const now = this.clock();
    const prepared = prepareAction(body, {
      plan: principal.plan,
      now,
      allowPrivateDestinations: this.options.allowPrivateDestinations,
    });
    if (!prepared.ok) throw new ValidationError(prepared.errors);
    const p = prepared.action;
    const accountId = principal.accountId;
    const gate = p.gate ? await resolveGate(this.store.sql, accountId, principal.plan, p.gate) : null;
    if (gate && !gate.ok) throw new ValidationError(gate.errors);
    if (gate) {
      const channels = gate.recipients.flatMap((r) => r.targets.map((t) => t.channel));
      await assertChannelAllowances(this.store.sql, accountId, principal.plan, channels, now);
    }

    // Set inside the transaction when the plan is unlimited: that create is counted after the commit.
    const countAfterCommit: { period: string | null } = { period: null };
    const allowance = planLimits(principal.plan).actionsPerMonth;
    // Without keys to lock, a gate, a quota to take, a destination to count or a job to write, a create is one
    // INSERT: a transaction around it would only add two round trips.
    const simple =
      !p.idempotencyKey &&
      p.dedupKeys.length === 0 &&
      !gate &&
      allowance === null &&
      !this.scheduler.writesAt(p.at);
    const guard = p.request ? this.options.countDestination : undefined;
    // A verified host (the common case of a busy sender) is read once, outside any transaction, to keep that path.
    const countsDestination =
      guard !== undefined &&
      (simple
        ? !(await isUncountedDestination(this.store.sql, accountId, p.request!.url))
        : destinationDomain(p.request!.url) !== null);
    const oneStatement = simple && !countsDestination;
    const unit = <T>(fn: (db: Sql) => Promise<T>) =>
      oneStatement ? fn(this.store.sql) : this.store.transaction(fn);
    const result = await unit(async (db): Promise<CreateResult> => {
      // Locks first, in a fixed order, so racing creates sharing a key queue up instead of both inserting.
      if (p.idempotencyKey) await lockName(db, accountId, 'idempotency', p.idempotencyKey);
      for (const key of [...p.dedupKeys].sort()) await lockName(db, accountId, 'dedup', key);

      if (p.idempotencyKey) {
        const existing = await findByIdempotencyKey(db, accountId, p.idempotencyKey, { liveOnly: true });
        if (existing)
          return { kind: 'skipped', action: await this.view(db, existing), reason: 'idempotency_key_exists' };
      }

      if (p.dedupKeys.length > 0 && p.coordination?.on_create) {
        const sharing = await actionsSharingKeys(db, accountId, p.dedupKeys, { liveOnly: true });
        const decision = decideOnCreate(
          p.coordination.on_create,
          sharing.map((s) => ({ id: s.id, status: s.status, createdAt: s.created_at })),
        );
        if (decision.kind === 'skip') {
          const existing = (await findAction(db, accountId, decision.existingId))!;
          return { kind: 'skipped', action: await this.view(db, existing), reason: SKIP_REASON };
        }
        if (decision.kind === 'replace') {
          for (const id of decision.cancelIds)
            await this.cancelRow(db, (await findAction(db, accountId, id, { forUpdate: true }))!, now);
        }
      }

      const newRow: NewAction = {
        id: randomUUID(),
        account_id: accountId,
        name: p.name,
        description: p.description,
        mode: p.mode,
        status: 'scheduled',
        timezone: p.timezone,
        scheduled_for: p.at,
        next_attempt_at: p.at,
        idempotency_key: p.idempotencyKey,
        dedup_keys: p.dedupKeys,
        max_attempts: p.maxAttempts,
        retry_strategy: p.retryStrategy,
        request: p.request,
        webhook_secret: p.webhookSecret,
        callback_url: p.callbackUrl,
        coordination: p.coordination,
        recurrence: p.recurrence,
        recurrence_anchor: p.recurrence ? p.at : null,
        gate: gate?.stored ?? null,
        created_at: now,
        updated_at: now,
      };
      const row = oneStatement ? await this.simpleInserts.add(newRow) : await insertAction(db, newRow);
      if (countsDestination) {
        // On the simple path the verification was read just above.
        await guard!(db, accountId, p.request!.url, now, { unverified: simple });
      }
      if (gate && p.gate) {
        await insertRecipients(db, row.id, 'recipient', gate.recipients, now);
        await insertAttachments(db, row.id, p.gate.attachments);
      }
      await this.scheduler.schedule(db, row.id, p.at);
      // Counted last, so the account's counter row is locked only for the commit. An unlimited plan is counted
      // after the commit instead: nothing to refuse, and no row every create of the account would queue on.
      const period = monthPeriod(now);
      if (allowance === null) {
        countAfterCommit.period = periodKey(period);
      } else if (
        !(await consumeUsage(db, {
          accountId,
          period: periodKey(period),
          metric: 'actions',
          limit: allowance,
        }))
      ) {
        throw new QuotaExceededError(
          `the ${principal.plan} plan allows ${allowance} actions a month; the quota resets ${period.end.toISOString()}`,
          Math.max(1, Math.ceil((period.end.getTime() - now.getTime()) / 1000)),
        );
      }

      // A new webhook action has no attempts yet: no need to read its (empty) log back.
      return {
        kind: 'created',
        action: row.mode === 'webhook' ? actionView(row, []) : await this.view(db, row),
      };
    });
    if (result.kind === 'created' && countAfterCommit.period)
      await this.lateCounts.add({ accountId, period: countAfterCommit.period });
    return result;
  }

  /** `credentials`: whether the caller's key may see stored header values (domain/auth/api-key.ts seesCredentials). */
  async get(accountId: string, id: string, credentials = true): Promise<Action> {
    const row = await findAction(this.store.sql, accountId, id);
    if (!row) throw new NotFoundError('action');
    return this.view(this.store.sql, row, credentials);
  }

  async list(accountId: string, q: ListQuery): Promise<Page<ActionSummary>> {
    const filter = toActionFilter(q);
    // A status that names nothing matches nothing.
    const { total, rows } =
      filter === null
        ? { total: 0, rows: [] }
        : await listActions(this.store.sql, accountId, filter, pageWindow(q));
    return pageOf(rows.map(actionSummary), total, q);
  }

  async cancel(accountId: string, id: string): Promise<{ id: string; name: string; status: 'cancelled' }> {
    return this.store.transaction(async (db) => {
      const row = await findAction(db, accountId, id, { forUpdate: true });
      if (!row) throw new NotFoundError('action');
      return this.cancelRow(db, row, this.clock());
    });
  }

  async cancelByIdempotencyKey(
    accountId: string,
    key: string,
  ): Promise<{ id: string; name: string; status: 'cancelled' }> {
    return this.store.transaction(async (db) => {
      await lockName(db, accountId, 'idempotency', key);
      const live = await findByIdempotencyKey(db, accountId, key, { liveOnly: true });
      const row = live ?? (await findByIdempotencyKey(db, accountId, key, { liveOnly: false }));
      if (!row) throw new NotFoundError('action with that idempotency key');
      return this.cancelRow(
        db,
        (await findAction(db, accountId, row.id, { forUpdate: true }))!,
        this.clock(),
      );
    });
  }

  async cancelByCoordinationKey(
    accountId: string,
    key: string,
  ): Promise<{ message: string; cancelled: number; skipped: number; coordination_key: string }> {
    return this.store.transaction(async (db) => {
      await lockName(db, accountId, 'dedup', key);
      const sharing = await actionsSharingKeys(db, accountId, [key]);
      const now = this.clock();
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
    return this.store.transaction(async (db) => {
      const row = await findAction(db, accountId, id, { forUpdate: true });
      if (!row) throw new NotFoundError('action');
      return this.retryRow(db, row, this.clock());
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
    const updated = await updateAction(db, row.id, {
      status: assertTransition(row.status, 'manual_retry'),
      attempt_count: 0,
      manual_retry_count: row.manual_retry_count + 1,
      reschedule_count: 0,
      next_attempt_at: now,
      last_error: null,
      lease_until: null,
      updated_at: now,
    });
    // A declined approval asks again: new links, a fresh timeout (app/approvals/outcomes.ts).
    if (row.mode === 'approval') await reopenGate(db, row, now);
    await this.scheduler.schedule(db, row.id, now);
    return {
      id: row.id,
      name: row.name,
      status: 'resolved',
      attempt_count: 0,
      manual_retry_count: updated.manual_retry_count,
    };
  }

  async coordinationKeys(accountId: string): Promise<string[]> {
    return coordinationKeys(this.store.sql, accountId);
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
    if (!isCancellable(row.status)) {
      throw new ConflictError(`action ${row.id} is ${row.status} and cannot be cancelled`);
    }
    await updateAction(db, row.id, {
      status: assertTransition(row.status, 'cancel'),
      next_attempt_at: null,
      lease_until: null,
      updated_at: now,
    });
    return { id: row.id, name: row.name, status: 'cancelled' };
  }

  async view(db: Sql, row: ActionRow, credentials = true): Promise<Action> {
    const [attempts, replays, bulkOperations] = await Promise.all([
      attemptsOf(db, row.id),
      replaysOf(db, row.id),
      bulkEventsOf(db, row.id),
    ]);
    const history = { replays, bulkOperations };
    if (row.mode !== 'approval') return actionView(row, attempts, undefined, credentials, history);
    const [recipients, events, attachments] = await Promise.all([
      recipientsOf(db, row.id),
      reminderEventsOf(db, row.id),
      attachmentsOf(db, row.id),
    ]);
    return actionView(row, attempts, { recipients, events, attachments }, credentials, history);
  }
}
