import {
  ACTION_VIEW_ATTEMPTS,
  type Action,
  type ActionCreateParsed,
  type ActionStats,
  type ActionSummary,
} from '@sched/contract';
import { auditUrl } from '../../domain/audit/details.js';
import { createNeedsTransaction } from '../../domain/action/create-shape.js';
import { assertTransition, isCancellable } from '../../domain/action/states.js';
import { decideOnCreate, SKIP_REASON } from '../../domain/coordination/dedup.js';
import { countedNames } from '../../domain/domains/rules.js';
import { isBlockedAddress } from '../../domain/destinations/policy.js';
import { monthPeriod, planLimits } from '../../domain/quota/plans.js';
import { announceBefore } from '../../domain/schedule/window.js';
import {
  type ActionRow,
  actionsSharingKeys,
  attemptPage,
  coordinationKeys,
  findAction,
  findByIdempotencyKey,
  insertActions,
  insertActionsWithAudit,
  listActions,
  lockName,
  type NewAction,
  replaysOf,
  updateAction,
  updateActions,
} from '../../persistence/actions.js';
import { bulkEventsOf } from '../../persistence/bulk-operations.js';
import { attachmentsOf } from '../../persistence/approvals/attachments.js';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import { timelineOf } from '../../persistence/timeline.js';
import type { Sql } from '../../persistence/database.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import { type CountDestination, checkCallbackHost, isUncountedDestination } from '../domains/guard.js';
import { type Principal, sendSourceOf } from '../accounts.js';
import { auditBatch, auditEventOf, recordAudit, recordAuditEvents } from '../audit.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { keysetCursor, type Page, pageOf, pageWindow, parseKeysetCursor } from '../pagination.js';
import type { ActionScheduler, ApprovalGates, Clock, ResolvedGate, Store } from '../ports.js';
import { TickBatch } from '../tick-batch.js';
import type { Waits } from '../waits.js';
import {
  type ActionOrigin,
  newActionRow,
  resolveActionGate,
  takeActionQuota,
  writeNewAction,
} from './create.js';
import { type ActionFilterQuery, toActionFilter } from './filter.js';
import { type PreparedAction, prepareAction } from './prepare.js';
import { actionSummary, actionView, attemptView, statsView } from './view.js';
import { countActionsByStatus, deliveryFigures, failingUrls } from '../../persistence/stats.js';

const REQUEST: ActionOrigin = { kind: 'request' };

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
  private readonly simpleInserts = new TickBatch<
    { row: NewAction; audit: ReturnType<typeof auditEventOf> },
    ActionRow
  >((items) =>
    // The rows, their audit events and the announcement of those due soon, in one statement for the turn's creates.
    insertActionsWithAudit(
      this.store.sql,
      items.map((i) => i.row),
      auditBatch(items.map((i) => i.audit)),
      announceBefore(this.clock()),
    ),
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
      /** Places a series' next occurrences in real time (SCHED_TIME_SCALE); unscaled when absent. */
      waits?: Waits;
      /** An approval's gate: resolved at create, reopened at retry (app/approvals/gate.ts). */
      gates: ApprovalGates;
    },
  ) {}

  /**
   * `POST /actions` (and a template trigger): prepare, then the idempotency and dedup decisions, then the create core
   * (app/actions/create.ts). A create with nothing to lock, count or schedule now is one INSERT shared with the other
   * creates of its turn (domain/action/create-shape.ts decides).
   */
  async create(
    principal: Principal,
    body: ActionCreateParsed,
    context: { traceparent?: string | null } = {},
  ): Promise<CreateResult> {
    const traceparent = context.traceparent ?? null;
    const now = this.clock();
    const prepared = prepareAction(body, {
      plan: principal.plan,
      now,
      allowPrivateDestinations: this.options.allowPrivateDestinations,
    });
    if (!prepared.ok) throw new ValidationError(prepared.errors);
    const p = prepared.action;
    const accountId = principal.accountId;
    const owner = { accountId, plan: principal.plan };
    // Read before the transaction: the directory lookups need no lock, and a bad gate is a 422 before any key is.
    const gate = await resolveActionGate(this.store.sql, owner, p, now, this.options.gates);

    // A public trigger acts as the owner but counts apart, so it cannot spend the owner's own threshold.
    const source = sendSourceOf(principal);
    await checkCallbackHost(this.options.countDestination, this.store.sql, accountId, p.callbackUrl, now, {
      field: 'callback_url',
      source,
    });
    const guard = p.request ? this.options.countDestination : undefined;
    const work = {
      locksKeys: p.idempotencyKey !== null || p.dedupKeys.length > 0,
      hasGate: gate !== null,
      quotaLimited: planLimits(principal.plan).actionsPerMonth !== null,
    };
    const simple = !createNeedsTransaction({ ...work, countsDestination: false });
    // A verified host (the common case of a busy sender) is read once, outside any transaction, to keep that path.
    const countsDestination =
      guard !== undefined &&
      (simple
        ? !(await isUncountedDestination(this.store.sql, accountId, p.request!.url))
        : countedNames(p.request!.url, isBlockedAddress).length > 0);
    if (!createNeedsTransaction({ ...work, countsDestination })) {
      const row = newActionRow(p, { accountId, gate, origin: REQUEST, now, traceparent, source });
      const inserted = await this.simpleInserts.add({
        row,
        audit: auditEventOf(accountId, createdRecord(row)),
      });
      // Scheduled by its row (and announced with the turn's creates, when due within the window).
      await this.lateCounts.add({ accountId, period: periodKey(monthPeriod(now)) });
      return { kind: 'created', action: actionView(inserted) };
    }

    // Set inside the transaction when the plan is unlimited: that create is counted after the commit.
    let countAfterCommit: string | null = null;
    const result = await this.store.transaction(async (db): Promise<CreateResult> => {
      // Locks first, in a fixed order, so racing creates sharing a key queue up instead of both inserting.
      if (p.idempotencyKey) await lockName(db, accountId, 'idempotency', p.idempotencyKey);
      for (const key of [...p.dedupKeys].sort()) await lockName(db, accountId, 'dedup', key);

      const skipped = await this.skipOrReplace(db, accountId, p, now);
      if (skipped) return skipped;

      const row = await writeNewAction(
        db,
        {
          owner,
          action: p,
          gate,
          origin: REQUEST,
          now,
          traceparent,
          source,
          // On the simple path the verification was read just above.
          destinationUnverified: simple,
          countLater: (period) => {
            countAfterCommit = period;
          },
        },
        { scheduler: this.scheduler, countDestination: countsDestination ? guard : undefined },
      );
      await recordAudit(db, accountId, createdRecord(row));
      // A new webhook action has no attempts yet: no need to read its (empty) log back.
      return {
        kind: 'created',
        action: row.mode === 'webhook' ? actionView(row) : await this.view(db, row),
      };
    });
    if (result.kind === 'created' && countAfterCommit !== null)
      await this.lateCounts.add({ accountId, period: countAfterCommit });
    return result;
  }

  /**
   * The idempotency and dedup decisions of a create whose keys the caller has locked: the skip it answers instead of
   * creating, or null after cancelling what a `replace` rule displaces.
   */
  private async skipOrReplace(
    db: Sql,
    accountId: string,
    p: PreparedAction,
    now: Date,
  ): Promise<CreateResult | null> {
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
    return null;
  }

  /**
   * `POST /actions/batch`: every item prepared and its gate resolved first (any problem is a 422 under
   * `actions.N.`), then ONE transaction. Items with keys or a gate go through the single create's decisions and the
   * create core one by one, in order, so a later item sees an earlier one (a repeated idempotency key is skipped);
   * the plain items take the quota together and are inserted in one statement. Any refusal (quota, destination
   * threshold) rolls the whole batch back.
   */
  async createMany(
    principal: Principal,
    bodies: readonly ActionCreateParsed[],
    context: { traceparent?: string | null } = {},
  ): Promise<CreateResult[]> {
    const traceparent = context.traceparent ?? null;
    const now = this.clock();
    const accountId = principal.accountId;
    const owner = { accountId, plan: principal.plan };
    const errors: Record<string, string[]> = {};
    const underItem = (i: number, found: Record<string, string[]>) => {
      for (const [path, messages] of Object.entries(found)) errors[`actions.${i}.${path}`] = messages;
    };
    const prepared: PreparedAction[] = [];
    bodies.forEach((body, i) => {
      const r = prepareAction(body, {
        plan: principal.plan,
        now,
        allowPrivateDestinations: this.options.allowPrivateDestinations,
      });
      if (r.ok) prepared.push(r.action);
      else underItem(i, r.errors);
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const gates: (ResolvedGate | null)[] = [];
    for (const [i, p] of prepared.entries()) {
      try {
        await checkCallbackHost(
          this.options.countDestination,
          this.store.sql,
          accountId,
          p.callbackUrl,
          now,
          {
            field: 'callback_url',
            source: sendSourceOf(principal),
          },
        );
        gates.push(await resolveActionGate(this.store.sql, owner, p, now, this.options.gates));
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        underItem(i, e.errors);
        gates.push(null);
      }
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);

    const count = this.options.countDestination;
    const guardOf = (i: number): CountDestination | undefined =>
      count &&
      ((db, account, url, at, opts) =>
        count(db, account, url, at, { ...opts, field: `actions.${i}.request.url` }));
    let countAfterCommit: { period: string; amount: number } | null = null;
    const countLater = (period: string, amount: number) => {
      countAfterCommit = { period, amount: (countAfterCommit?.amount ?? 0) + amount };
    };
    const results = await this.store.transaction(async (db): Promise<CreateResult[]> => {
      // All keys locked first, idempotency then dedup, each sorted: the single create's order, so no deadlock.
      const unique = (keys: (string | null)[]) => [...new Set(keys.filter((k) => k !== null))].sort();
      for (const key of unique(prepared.map((p) => p.idempotencyKey)))
        await lockName(db, accountId, 'idempotency', key);
      for (const key of unique(prepared.flatMap((p) => p.dedupKeys)))
        await lockName(db, accountId, 'dedup', key);

      const out: CreateResult[] = new Array(prepared.length);
      const plain: { index: number; row: NewAction; at: Date }[] = [];
      // Whether a host is counted, read once per host of the batch.
      const counted = new Map<string, boolean>();
      for (const [i, p] of prepared.entries()) {
        const gate = gates[i]!;
        if (p.idempotencyKey !== null || p.dedupKeys.length > 0 || gate !== null) {
          const skipped = await this.skipOrReplace(db, accountId, p, now);
          if (skipped) {
            out[i] = skipped;
            continue;
          }
          const row = await writeNewAction(
            db,
            { owner, action: p, gate, origin: REQUEST, now, traceparent, countLater },
            { scheduler: this.scheduler, countDestination: guardOf(i) },
          );
          out[i] = {
            kind: 'created',
            action: row.mode === 'webhook' ? actionView(row) : await this.view(db, row),
          };
          continue;
        }
        const guard = guardOf(i);
        let firstSend: 'created' | 'none' = 'none';
        if (p.request && guard) {
          const names = countedNames(p.request.url, isBlockedAddress);
          if (names.length > 0) {
            const host = names.join(' ');
            let unverified = counted.get(host);
            if (unverified === undefined) {
              unverified = !(await isUncountedDestination(db, accountId, p.request.url));
              counted.set(host, unverified);
            }
            if (unverified && (await guard(db, accountId, p.request.url, now, { unverified: true })))
              firstSend = 'created';
          }
        }
        plain.push({
          index: i,
          row: newActionRow(p, { accountId, gate: null, origin: REQUEST, now, traceparent, firstSend }),
          at: p.at,
        });
      }
      if (plain.length > 0) {
        await takeActionQuota(db, owner, now, countLater, plain.length);
        const rows = await insertActions(
          db,
          plain.map((x) => x.row),
        );
        await this.scheduler.announce(
          db,
          rows.map((row, k) => ({ actionId: row.id, dueAt: plain[k]!.at })),
        );
        for (const [k, row] of rows.entries())
          out[plain[k]!.index] = { kind: 'created', action: actionView(row) };
      }
      return out;
    });
    const late = countAfterCommit as { period: string; amount: number } | null;
    if (late)
      await consumeUsage((this.options.counters ?? this.store).sql, {
        accountId,
        period: late.period,
        metric: 'actions',
        limit: null,
        amount: late.amount,
      });
    return results;
  }

  /** `credentials`: whether the caller's key may see stored header values (domain/auth/api-key.ts seesCredentials). */
  async get(accountId: string, id: string, credentials = true): Promise<Action> {
    // One snapshot: the row, its attempts and events as of one moment (a delivery may commit between two reads).
    return this.store.snapshot((db) => this.viewOf(db, accountId, id, credentials));
  }

  private async viewOf(db: Sql, accountId: string, id: string, credentials: boolean): Promise<Action> {
    const row = await findAction(db, accountId, id);
    if (!row) throw new NotFoundError('action');
    return this.view(db, row, credentials);
  }

  /**
   * Runs `change` (another use case of this action, whose transaction joins this one) and answers the action's view
   * as that change leaves it: read after the commit, a worker may already have claimed a resumed action.
   */
  async viewAfter(
    accountId: string,
    id: string,
    credentials: boolean,
    change: () => Promise<unknown>,
  ): Promise<Action> {
    return this.store.transaction(async (db) => {
      await change();
      return this.viewOf(db, accountId, id, credentials);
    });
  }

  /**
   * `GET /v1/actions/{id}/attempts`: the attempts newest first, a keyset page at a time. An unknown id or
   * another account's action is a 404; a cursor this service did not write is a 422 on `before`.
   */
  async attempts(
    accountId: string,
    id: string,
    q: { before?: string | undefined; limit: number },
  ): Promise<{ data: Action['delivery_attempts']; meta: { next_before: string | null; limit: number } }> {
    const before = q.before === undefined ? null : parseKeysetCursor(q.before);
    if (q.before !== undefined && before === null)
      throw ValidationError.field('before', 'must be a `meta.next_before` of an earlier page');
    const row = await findAction(this.store.sql, accountId, id);
    if (!row) throw new NotFoundError('action');
    const rows = await attemptPage(this.store.sql, row.id, { limit: q.limit + 1, before });
    const shown = rows.slice(0, q.limit);
    const last = shown.at(-1);
    return {
      data: shown.map(attemptView),
      meta: {
        next_before:
          rows.length > q.limit && last ? keysetCursor({ at: last.started_at, id: last.id }) : null,
        limit: q.limit,
      },
    };
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
    const counted = await this.options.countDestination?.(db, accountId, row.request.url, now);
    const updated = await updateAction(db, row.id, {
      ...(counted && { counted_occurrence: row.recurrence_index }),
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
    if (row.mode === 'approval') await this.options.gates.reopen(db, row, now);
    await this.scheduler.schedule(db, row.id, now);
    await recordAudit(db, row.account_id, {
      action: 'action.retry',
      resource: { type: 'action', id: row.id },
      details: { from_status: row.status, manual_retry_count: updated.manual_retry_count },
    });
    return {
      id: row.id,
      name: row.name,
      status: 'resolved',
      attempt_count: 0,
      manual_retry_count: updated.manual_retry_count,
    };
  }

  /** The console's overview: actions per state and the last 24 hours of deliveries (`GET /v1/stats`). */
  async stats(accountId: string): Promise<ActionStats> {
    const until = this.clock();
    const since = new Date(until.getTime() - 24 * 3_600_000);
    const [byStatus, figures, failing] = await Promise.all([
      countActionsByStatus(this.store.sql, accountId),
      deliveryFigures(this.store.sql, accountId, since, until),
      failingUrls(this.store.sql, accountId, since, until, 500),
    ]);
    return statsView(byStatus, figures, failing, since, until);
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
    await this.cancelRows(db, [row], now);
    return { id: row.id, name: row.name, status: 'cancelled' };
  }

  /** `cancelRow` for several rows locked by the caller, in one statement per target state (a bulk cancel's batch). */
  async cancelRows(db: Sql, rows: readonly ActionRow[], now: Date): Promise<void> {
    const byTarget = new Map<ActionRow['status'], string[]>();
    for (const row of rows) {
      if (!isCancellable(row.status)) {
        throw new ConflictError(`action ${row.id} is ${row.status} and cannot be cancelled`);
      }
      const to = assertTransition(row.status, 'cancel');
      byTarget.set(to, [...(byTarget.get(to) ?? []), row.id]);
    }
    for (const [status, ids] of byTarget) {
      await updateActions(db, ids, { status, next_attempt_at: null, lease_until: null, updated_at: now });
    }
    // One chain per account: a bulk batch may span accounts only in tests, so group anyway.
    await recordAuditEvents(
      db,
      rows.map((row) =>
        auditEventOf(row.account_id, {
          action: 'action.cancel',
          resource: { type: 'action', id: row.id },
          details: { from_status: row.status },
        }),
      ),
    );
  }

  async view(db: Sql, row: ActionRow, credentials = true): Promise<Action> {
    const waits = this.options.waits;
    // The timeline (reminder_events) holds an approval's answers, pauses and resumes of either mode, and the bulk
    // operations that changed the action.
    // The newest attempts only, one more than shown to tell whether older ones exist.
    const [newest, events, replays, bulkOperations] = await Promise.all([
      attemptPage(db, row.id, { limit: ACTION_VIEW_ATTEMPTS + 1 }),
      timelineOf(db, row.id),
      replaysOf(db, row.id),
      bulkEventsOf(db, row.id),
    ]);
    const history = { replays, bulkOperations };
    const attempts = {
      rows: newest.slice(0, ACTION_VIEW_ATTEMPTS).reverse(),
      more: newest.length > ACTION_VIEW_ATTEMPTS,
    };
    if (row.mode !== 'approval')
      return actionView(
        row,
        attempts,
        { recipients: [], events, attachments: [] },
        credentials,
        history,
        waits,
      );
    const [recipients, attachments] = await Promise.all([
      recipientsOf(db, row.id),
      attachmentsOf(db, row.id),
    ]);
    return actionView(row, attempts, { recipients, events, attachments }, credentials, history, waits);
  }
}

/** The audit record of a new action: what was asked for, never its secrets (headers and signing secret left out). */
function createdRecord(row: Pick<NewAction, 'id' | 'name' | 'mode' | 'scheduled_for' | 'request'>) {
  return {
    action: 'action.create',
    resource: { type: 'action', id: row.id },
    details: {
      name: row.name,
      mode: row.mode,
      scheduled_for: row.scheduled_for.toISOString(),
      // Without its query or user info, where tokens travel (`?key=`); headers and body never.
      ...(row.request ? { method: row.request.method, url: auditUrl(row.request.url) } : {}),
    },
  };
}
