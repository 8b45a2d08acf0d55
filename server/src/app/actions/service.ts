import { randomUUID } from 'node:crypto';
import type { Action, ActionCreateParsed, ActionSummary } from '@sched/contract';
import { assertTransition, CANCELLABLE_STATES, parseActionStatus } from '../../domain/action/states.js';
import { decideOnCreate, SKIP_REASON } from '../../domain/coordination/dedup.js';
import { monthPeriod, type Plan, planLimits } from '../../domain/quota/plans.js';
import { type ActionRow, actionSql, type StoredGate } from '../../persistence/action-store.js';
import { attachmentsOf, insertAttachments } from '../../persistence/approvals/attachments.js';
import { insertRecipients, recipientsOf } from '../../persistence/approvals/recipients.js';
import { reminderEventsOf } from '../../persistence/approvals/reminder-events.js';
import { reopenGate } from '../approvals/outcomes.js';
import { resolveEscalationContacts, resolveRecipients, sqlDirectory } from '../approvals/recipients.js';
import { asDate, type Db, type Sql } from '../../persistence/db.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import type { Principal } from '../accounts.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { ActionScheduler, Clock } from '../ports.js';
import { QuotaExceededError } from '../quota.js';
import { type PreparedGate, prepareAction } from './prepare.js';
import { actionSummary, actionView } from './view.js';

export type CreateResult =
  | { kind: 'created'; action: Action }
  | { kind: 'skipped'; action: Action; reason: string };

export interface ListQuery {
  status?: string | undefined;
  mode?: string | undefined;
  search?: string | undefined;
  coordination_key?: string | undefined;
  dedup_key?: string | undefined;
  recurring?: 'recurring' | 'one-time' | undefined;
  page: number;
  per_page: number;
}

const MODE_FILTER: Record<string, string> = {
  webhook: 'webhook',
  immediate: 'webhook',
  approval: 'approval',
  gated: 'approval',
};

/** Use cases of webhook actions: create, read, cancel, retry. Every query is scoped to the caller's account. */
export class ActionService {
  constructor(
    private readonly db: Db,
    private readonly scheduler: ActionScheduler,
    private readonly clock: Clock,
    private readonly options: {
      allowPrivateDestinations: boolean;
      /**
       * Where the usage of plans without a quota is counted after the commit: a connection that does not wait for
       * the disk flush, since that row is updated by every create of the account and the count only reports.
       */
      counters?: Sql;
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
    const gate = p.gate ? await this.resolveGate(p.gate, accountId, principal.plan) : null;

    // Set inside the transaction when the plan is unlimited: that create is counted after the commit.
    const countAfterCommit: { period: string | null } = { period: null };
    const allowance = planLimits(principal.plan).actionsPerMonth;
    // Without keys to lock, a gate, a quota to take or a job to write, a create is one INSERT: a transaction
    // around it would only add two round trips.
    const oneStatement =
      !p.idempotencyKey &&
      p.dedupKeys.length === 0 &&
      !gate &&
      allowance === null &&
      !this.scheduler.writesAt(p.at);
    const unit = <T>(fn: (tx: Sql) => Promise<T>) => (oneStatement ? fn(this.db) : this.db.transaction(fn));
    const result = await unit(async (tx): Promise<CreateResult> => {
      // Locks first, in a fixed order, so racing creates sharing a key queue up instead of both inserting.
      if (p.idempotencyKey) await actionSql.lock(tx, accountId, 'idempotency', p.idempotencyKey);
      for (const key of [...p.dedupKeys].sort()) await actionSql.lock(tx, accountId, 'dedup', key);

      if (p.idempotencyKey) {
        const existing = await actionSql.findLiveByIdempotencyKey(tx, accountId, p.idempotencyKey);
        if (existing)
          return { kind: 'skipped', action: await this.view(tx, existing), reason: 'idempotency_key_exists' };
      }

      if (p.dedupKeys.length > 0 && p.coordination?.on_create) {
        const sharing = await actionSql.sharingKeys(tx, accountId, p.dedupKeys, { liveOnly: true });
        const decision = decideOnCreate(
          p.coordination.on_create,
          sharing.map((s) => ({ id: s.id, status: s.status, createdAt: asDate(s.created_at) })),
        );
        if (decision.kind === 'skip') {
          const existing = (await actionSql.find(tx, accountId, decision.existingId))!;
          return { kind: 'skipped', action: await this.view(tx, existing), reason: SKIP_REASON };
        }
        if (decision.kind === 'replace') {
          for (const id of decision.cancelIds)
            await this.cancelRow(tx, (await actionSql.find(tx, accountId, id, { forUpdate: true }))!);
        }
      }

      const row = await actionSql.insert(tx, {
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
      });
      if (gate && p.gate) {
        await insertRecipients(tx.typed, row.id, 'recipient', gate.recipients, now);
        await insertAttachments(tx.typed, row.id, p.gate.attachments);
      }
      await this.scheduler.schedule(tx, row.id, p.at);
      // Counted last, so the account's counter row is locked only for the commit. An unlimited plan is counted
      // after the commit instead: nothing to refuse, and no row every create of the account would queue on.
      const period = monthPeriod(now);
      if (allowance === null) {
        countAfterCommit.period = periodKey(period);
      } else if (
        !(await consumeUsage(tx.typed, {
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
        action: row.mode === 'webhook' ? actionView(row, []) : await this.view(tx, row),
      };
    });
    if (result.kind === 'created' && countAfterCommit.period) {
      await consumeUsage((this.options.counters ?? this.db).typed, {
        accountId,
        period: countAfterCommit.period,
        metric: 'actions',
        limit: null,
      });
    }
    return result;
  }

  async get(accountId: string, id: string): Promise<Action> {
    const row = await actionSql.find(this.db, accountId, id);
    if (!row) throw new NotFoundError('action');
    return this.view(this.db, row);
  }

  async list(
    accountId: string,
    q: ListQuery,
  ): Promise<{
    data: ActionSummary[];
    meta: { current_page: number; last_page: number; total: number; per_page: number };
  }> {
    const where = ['account_id = $1'];
    const params: unknown[] = [accountId];
    const add = (clause: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (q.status) add((n) => `status = ${n}`, parseActionStatus(q.status));
    if (q.mode) add((n) => `mode = ${n}`, MODE_FILTER[q.mode]);
    if (q.search)
      add(
        (n) => `(name ilike ${n} or description ilike ${n})`,
        `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      );
    const key = q.coordination_key ?? q.dedup_key;
    if (key) add((n) => `dedup_keys @> array[${n}]::text[]`, key);
    if (q.recurring === 'recurring') where.push('recurrence is not null');
    if (q.recurring === 'one-time') where.push('recurrence is null');
    const filter = where.join(' and ');
    const [{ total } = { total: 0 }] = await this.db.query<{ total: number }>(
      `select count(*)::int as total from actions where ${filter}`,
      params,
    );
    const rows = await this.db.query<ActionRow>(
      `select * from actions where ${filter} order by created_at desc, id desc limit ${q.per_page} offset ${(q.page - 1) * q.per_page}`,
      params,
    );
    return {
      data: rows.map(actionSummary),
      meta: {
        current_page: q.page,
        last_page: Math.max(1, Math.ceil(total / q.per_page)),
        total,
        per_page: q.per_page,
      },
    };
  }

  async cancel(accountId: string, id: string): Promise<{ id: string; name: string; status: 'cancelled' }> {
    return this.db.transaction(async (tx) => {
      const row = await actionSql.find(tx, accountId, id, { forUpdate: true });
      if (!row) throw new NotFoundError('action');
      return this.cancelRow(tx, row);
    });
  }

  async cancelByIdempotencyKey(
    accountId: string,
    key: string,
  ): Promise<{ id: string; name: string; status: 'cancelled' }> {
    return this.db.transaction(async (tx) => {
      await actionSql.lock(tx, accountId, 'idempotency', key);
      const live = await actionSql.findLiveByIdempotencyKey(tx, accountId, key);
      const row = live ?? (await actionSql.latestByIdempotencyKey(tx, accountId, key));
      if (!row) throw new NotFoundError('action with that idempotency key');
      return this.cancelRow(tx, (await actionSql.find(tx, accountId, row.id, { forUpdate: true }))!);
    });
  }

  async cancelByCoordinationKey(
    accountId: string,
    key: string,
  ): Promise<{ message: string; cancelled: number; skipped: number; coordination_key: string }> {
    return this.db.transaction(async (tx) => {
      await actionSql.lock(tx, accountId, 'dedup', key);
      const sharing = await actionSql.sharingKeys(tx, accountId, [key]);
      let cancelled = 0;
      let skipped = 0;
      for (const s of sharing) {
        if ((CANCELLABLE_STATES as readonly string[]).includes(s.status)) {
          const row = (await actionSql.find(tx, accountId, s.id, { forUpdate: true }))!;
          if ((CANCELLABLE_STATES as readonly string[]).includes(row.status)) {
            await this.cancelRow(tx, row);
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
    return this.db.transaction(async (tx) => {
      const row = await actionSql.find(tx, accountId, id, { forUpdate: true });
      if (!row) throw new NotFoundError('action');
      if (row.status !== 'failed')
        throw ValidationError.field(
          'status',
          `only failed actions can be retried; this one is ${row.status}`,
        );
      if (!row.request) throw ValidationError.field('request', 'this action has no HTTP request to retry');
      if (row.idempotency_key) {
        await actionSql.lock(tx, accountId, 'idempotency', row.idempotency_key);
        const holder = await actionSql.findLiveByIdempotencyKey(tx, accountId, row.idempotency_key);
        if (holder) {
          throw new ConflictError(
            `idempotency key '${row.idempotency_key}' now belongs to live action ${holder.id}`,
          );
        }
      }
      const to = assertTransition(row.status, 'manual_retry');
      const now = this.clock();
      const [updated] = await tx.query<ActionRow>(
        `update actions set status = $2, attempt_count = 0, manual_retry_count = manual_retry_count + 1, reschedule_count = 0,
           next_attempt_at = $3, last_error = null, lease_until = null, updated_at = now()
         where id = $1 returning *`,
        [row.id, to, now],
      );
      // A declined approval asks again: new links, a fresh timeout (app/approvals/outcomes.ts).
      if (row.mode === 'approval') await reopenGate(tx, row, now);
      await this.scheduler.schedule(tx, row.id, now);
      return {
        id: row.id,
        name: row.name,
        status: 'resolved',
        attempt_count: 0,
        manual_retry_count: updated!.manual_retry_count,
      };
    });
  }

  async coordinationKeys(accountId: string): Promise<string[]> {
    const rows = await this.db.query<{ key: string }>(
      'select distinct unnest(dedup_keys) as key from actions where account_id = $1 order by key',
      [accountId],
    );
    return rows.map((r) => r.key);
  }

  /** Resolves gate recipients and escalation contacts against the account's directory; 422 on any unknown one. */
  private async resolveGate(g: PreparedGate, accountId: string, plan: Plan) {
    const directory = sqlDirectory(this.db, accountId);
    const slackTeamsAllowed = planLimits(plan).slackTeams;
    const resolved = await resolveRecipients(g.recipients, {
      channels: g.channels,
      directory,
      field: 'gate.recipients',
      slackTeamsAllowed,
    });
    const errors: Record<string, string[]> = resolved.ok ? {} : { ...resolved.errors };
    if (g.channels && !slackTeamsAllowed && g.channels.some((c) => c === 'slack' || c === 'teams')) {
      errors['gate.channels'] = ['Slack and Teams are Business-plan features'];
    }
    let escalation: StoredGate['escalation'] = null;
    if (g.escalation) {
      const esc = await resolveEscalationContacts(g.escalation.contacts, {
        directory,
        field: 'gate.escalation.contacts',
      });
      if (!esc.ok) Object.assign(errors, esc.errors);
      else
        escalation = {
          contacts: g.escalation.contacts,
          after_hours: g.escalation.after_hours,
          recipients: esc.recipients,
        };
    }
    if (!resolved.ok || Object.keys(errors).length > 0) throw new ValidationError(errors);
    const stored: StoredGate = {
      message: g.message,
      channels: resolved.channels,
      buttons: g.buttons,
      confirmation_mode: g.confirmation_mode,
      max_snoozes: g.max_snoozes,
      snooze_count: 0,
      timeout: g.timeout,
      timeout_ms: g.timeoutMs,
      on_timeout: g.on_timeout,
      escalation,
      sent_at: null,
      expires_at: null,
      escalated_at: null,
      post_approval_action_id: null,
    };
    return { stored, recipients: resolved.recipients };
  }

  /** Applies the `cancel` transition of the state table; a non-cancellable state is a 409 naming it. */
  private async cancelRow(
    tx: Sql,
    row: ActionRow,
  ): Promise<{ id: string; name: string; status: 'cancelled' }> {
    if (!(CANCELLABLE_STATES as readonly string[]).includes(row.status)) {
      throw new ConflictError(`action ${row.id} is ${row.status} and cannot be cancelled`);
    }
    assertTransition(row.status, 'cancel');
    await tx.query(
      `update actions set status = 'cancelled', next_attempt_at = null, lease_until = null, updated_at = now() where id = $1`,
      [row.id],
    );
    return { id: row.id, name: row.name, status: 'cancelled' };
  }

  private async view(db: Sql, row: ActionRow): Promise<Action> {
    const attempts = await actionSql.attempts(db, row.id);
    if (row.mode !== 'approval') return actionView(row, attempts);
    const [recipients, events, attachments] = await Promise.all([
      recipientsOf(db.typed, row.id),
      reminderEventsOf(db.typed, row.id),
      attachmentsOf(db.typed, row.id),
    ]);
    return actionView(row, attempts, { recipients, events, attachments });
  }
}
