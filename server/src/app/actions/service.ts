import { calendarsNamedBy } from '../calendars/book.js';
import type { ActionCreateParsed } from '@sched/contract';
import { createNeedsTransaction } from '../../domain/action/create-shape.js';
import { destinationOrigin } from '../../domain/destinations/origin.js';
import { isBlockedAddress, type PrivateAccess } from '../../domain/destinations/policy.js';
import { countedNames } from '../../domain/domains/rules.js';
import { monthPeriod, planLimits } from '../../domain/quota/plans.js';
import { registerOrigins } from '../../persistence/action-origins.js';
import { type ActionRow, lockName } from '../../persistence/actions.js';
import { periodKey } from '../../persistence/usage-counters.js';
import { type Principal, sendSourceOf } from '../accounts.js';
import { type CountDestination, checkCallbackHost, isUncountedDestination } from '../domains/guard.js';
import { ValidationError } from '../errors.js';
import type { ActionScheduler, ApprovalGates, Clock, ResolvedGate, Store } from '../ports.js';
import { LateActionCounts } from '../quota.js';
import { TickBatch } from '../tick-batch.js';
import type { ActionChanges } from './cancel-retry.js';
import {
  type NewActionRecord,
  newActionRecord,
  REQUEST,
  resolveActionGate,
  writeNewAction,
} from './create.js';
import { insertNewActions, writeNewActions } from './create-batch.js';
import { type CreateResult, skipOrReplace } from './dedup.js';
import { type PreparedAction, prepareAction } from './prepare.js';
import type { ActionQueries } from './queries.js';
import { actionView } from './view.js';

/** Whether a batch item goes through the single create's decisions on its own (keys, a gate), not the batch writer. */
function writtenAlone(p: PreparedAction, gate: ResolvedGate | null): boolean {
  return p.idempotencyKey !== null || p.dedupKeys.length > 0 || gate !== null;
}

/**
 * Creating actions through the API: one (`POST /v1/actions`, also behind template triggers) or a batch
 * (`POST /v1/actions/batch`). It decides idempotency and dedup under the keys' locks and hands the writing to the
 * create core (create.ts, create-batch.ts). Reads are ActionQueries (queries.ts); cancel and retry ActionChanges
 * (cancel-retry.ts).
 */
export class ActionService {
  /** Creates counted after their commit (plans without a quota), summed per account and month. */
  readonly lateCounts = new LateActionCounts(
    () => (this.options.counters ?? this.store).sql,
    (err) => this.options.countFailed?.(err),
  );

  /** The one-statement creates of one turn of the event loop, inserted together (group commit). */
  private readonly simpleInserts = new TickBatch<NewActionRecord, ActionRow>((items) =>
    insertNewActions(this.store.sql, items, this.clock()),
  );

  constructor(
    private readonly store: Store,
    private readonly scheduler: ActionScheduler,
    private readonly clock: Clock,
    private readonly options: {
      allowPrivateDestinations: PrivateAccess;
      /**
       * Where the usage of plans without a quota is counted after the commit: a connection that does not wait for
       * the disk flush, since that row is updated by every create of the account and the count only reports.
       */
      counters?: Store;
      /** The destination-domain threshold (app/domains/guard.ts), counted in the create's transaction. */
      countDestination?: CountDestination;
      /** An approval's gate, resolved before the create's transaction (app/approvals/gate.ts). */
      gates: ApprovalGates;
      /** The created or skipped action as `GET /v1/actions/{id}` shows it. */
      queries: Pick<ActionQueries, 'view'>;
      /** Cancels what a `replace` coordination rule displaces. */
      changes: Pick<ActionChanges, 'cancelRow'>;
      /** A create counted after its commit whose count could not be written. */
      countFailed?: (err: unknown) => void;
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
    // Only a delivery window or quiet hours can name a calendar: without either there is nothing to read.
    const windowed = body.delivery_window !== undefined || body.gate?.quiet_hours !== undefined;
    const prepared = prepareAction(body, {
      plan: principal.plan,
      now,
      allowPrivateDestinations: this.options.allowPrivateDestinations,
      ...(windowed ? { calendars: await calendarsNamedBy(this.store.sql, principal.accountId, [body]) } : {}),
    });
    if (!prepared.ok) throw new ValidationError(prepared.errors);
    const p = prepared.action;
    const accountId = principal.accountId;
    const owner = { accountId, plan: principal.plan };
    const gate = await this.beforeTransaction(principal, p, now);
    // A public trigger acts as the owner but counts apart, so it cannot spend the owner's own threshold.
    const source = sendSourceOf(principal);
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
      const inserted = await this.simpleInserts.add(
        newActionRecord(
          p,
          { accountId, gate, origin: REQUEST, now, traceparent, source },
          principal.recordsCreates !== false,
        ),
      );
      // Scheduled by its row (and announced with the turn's creates, when due within the window).
      this.lateCounts.add(accountId, periodKey(monthPeriod(now)));
      return { kind: 'created', action: actionView(inserted) };
    }

    // Set inside the transaction when the plan is unlimited: that create is counted after the commit.
    let countAfterCommit: string | null = null;
    const result = await this.store.transaction(async (db): Promise<CreateResult> => {
      // Locks first, in a fixed order, so racing creates sharing a key queue up instead of both inserting.
      if (p.idempotencyKey) await lockName(db, accountId, 'idempotency', p.idempotencyKey);
      for (const key of [...p.dedupKeys].sort()) await lockName(db, accountId, 'dedup', key);

      const skipped = await skipOrReplace(db, accountId, p, now, this.options);
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
      // A new webhook action has no attempts yet: no need to read its (empty) log back.
      return {
        kind: 'created',
        action: row.mode === 'webhook' ? actionView(row) : await this.options.queries.view(db, row),
      };
    });
    if (result.kind === 'created' && countAfterCommit !== null)
      this.lateCounts.add(accountId, countAfterCommit);
    return result;
  }

  /**
   * What a create reads before its transaction, the directory lookups and host checks that need no lock, so a bad
   * gate or callback host is a 422 before any key is locked: the gate resolved, and the callback's host checked.
   */
  private async beforeTransaction(principal: Principal, p: PreparedAction, now: Date) {
    const owner = { accountId: principal.accountId, plan: principal.plan };
    const gate = await resolveActionGate(this.store.sql, owner, p, now, this.options.gates);
    await checkCallbackHost(
      this.options.countDestination,
      this.store.sql,
      owner.accountId,
      p.callbackUrl,
      now,
      {
        field: 'callback_url',
        source: sendSourceOf(principal),
      },
    );
    return gate;
  }

  /**
   * `POST /actions/batch`: every item prepared and its gate resolved first (any problem is a 422 under
   * `actions.N.`), then ONE transaction. Items with keys or a gate go through the single create's decisions and the
   * create core one by one, in order, so a later item sees an earlier one (a repeated idempotency key is skipped);
   * the plain items go to the core's batch writer (create-batch.ts): quota together, one statement. Any refusal (quota, destination
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
    const calendars = await calendarsNamedBy(this.store.sql, accountId, bodies);
    bodies.forEach((body, i) => {
      const r = prepareAction(body, {
        plan: principal.plan,
        now,
        allowPrivateDestinations: this.options.allowPrivateDestinations,
        calendars,
      });
      if (r.ok) prepared.push(r.action);
      else underItem(i, r.errors);
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const gates: (ResolvedGate | null)[] = [];
    for (const [i, p] of prepared.entries()) {
      try {
        gates.push(await this.beforeTransaction(principal, p, now));
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
      // Then, when an item is written on its own below, the batch's origins at once (persistence/action-origins.ts):
      // its writes then add none, so two batches sharing new origins never wait on each other crosswise.
      if (prepared.some((p, i) => writtenAlone(p, gates[i]!)))
        await registerOrigins(
          db,
          accountId,
          prepared
            .flatMap((p) => (p.request ? [destinationOrigin(p.request.url)] : []))
            .filter((o) => o !== null),
        );

      const out: CreateResult[] = new Array(prepared.length);
      const plain: { index: number; action: PreparedAction; field: string }[] = [];
      for (const [i, p] of prepared.entries()) {
        const gate = gates[i]!;
        if (!writtenAlone(p, gate)) {
          plain.push({ index: i, action: p, field: `actions.${i}` });
          continue;
        }
        const skipped = await skipOrReplace(db, accountId, p, now, this.options);
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
          action: row.mode === 'webhook' ? actionView(row) : await this.options.queries.view(db, row),
        };
      }
      const rows = await writeNewActions(
        db,
        owner,
        plain,
        { now, traceparent, countLater },
        { countDestination: this.options.countDestination },
      );
      for (const [k, row] of rows.entries())
        out[plain[k]!.index] = { kind: 'created', action: actionView(row) };
      return out;
    });
    const late = countAfterCommit as { period: string; amount: number } | null;
    if (late) this.lateCounts.add(accountId, late.period, late.amount);
    return results;
  }
}
