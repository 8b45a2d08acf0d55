import type { PrivateAccess } from '../../domain/destinations/policy.js';
import { calendarsNamedBy } from '../calendars/book.js';
import type { Action, ActionCreateParsed, ReplayBody } from '@sched/contract';
import type { Plan } from '../../domain/quota/plans.js';
import { isTerminal } from '../../domain/action/states.js';
import { type ActionRow, findAction, markReplay } from '../../persistence/actions.js';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import type { Recipient } from '../../persistence/approvals/recipients.js';
import type { Sql } from '../../persistence/database.js';
import type { Principal } from '../accounts.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { ActionScheduler, ApprovalGates, Clock, Store } from '../ports.js';
import { type CountDestination, checkCallbackHost } from '../domains/guard.js';
import { createAction } from './create.js';
import { prepareAction } from './prepare.js';

export interface ReplayDeps {
  store: Store;
  scheduler: ActionScheduler;
  clock: Clock;
  allowPrivateDestinations: PrivateAccess;
  countDestination?: CountDestination | undefined;
  gates: ApprovalGates;
  /** The action as `GET /actions/{id}` shows it, read in the transaction that made it. */
  view: (db: Sql, row: ActionRow) => Promise<Action>;
}

/**
 * The original's definition as a create body, with the replay's overrides. Copied: mode, name, description,
 * timezone, request, callback, attempts and strategy, signing secret, dedup keys and coordination, recurrence, and
 * an approval's gate (recipients by the references they were given as). Not copied: the idempotency key (the
 * original holds it) and the schedule, which is now unless the overrides say otherwise. Pure.
 */
export function replayDefinition(
  row: ActionRow,
  recipients: readonly Recipient[],
  overrides: ReplayBody,
  now: Date,
): ActionCreateParsed {
  const request = row.request
    ? {
        url: row.request.url,
        method: row.request.method,
        headers: overrides.request?.headers ?? row.request.headers,
        ...(overrides.request && 'body' in overrides.request && overrides.request.body !== undefined
          ? { body: overrides.request.body }
          : row.request.body !== undefined
            ? { body: row.request.body }
            : {}),
      }
    : undefined;
  const scheduleGiven = overrides.schedule !== undefined || overrides.scheduled_for !== undefined;
  const g = row.gate;
  return {
    mode: row.mode,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    timezone: overrides.timezone ?? row.timezone,
    ...(scheduleGiven
      ? {
          ...(overrides.schedule ? { schedule: overrides.schedule } : {}),
          ...(overrides.scheduled_for ? { scheduled_for: overrides.scheduled_for } : {}),
        }
      : { scheduled_for: now.toISOString() }),
    ...(request ? { request } : {}),
    ...(row.callback_url ? { callback_url: row.callback_url } : {}),
    max_attempts: row.max_attempts,
    retry_strategy: row.retry_strategy,
    ...(row.webhook_secret ? { webhook_secret: row.webhook_secret } : {}),
    ...(row.dedup_keys.length > 0 ? { dedup_keys: row.dedup_keys } : {}),
    ...(row.coordination ? { coordination: row.coordination } : {}),
    ...(row.recurrence ? { recurrence: row.recurrence } : {}),
    ...(row.delivery_window ? { delivery_window: row.delivery_window } : {}),
    ...(g
      ? {
          gate: {
            message: g.message,
            recipients: recipients.filter((r) => r.role === 'recipient').map((r) => r.reference),
            ...(g.channels.length > 0 ? { channels: g.channels as never } : {}),
            buttons: [...g.buttons],
            confirmation_mode: g.confirmation_mode,
            ...(g.min_approvals ? { min_approvals: g.min_approvals } : {}),
            ...(g.required_recipients?.length ? { required_recipients: g.required_recipients } : {}),
            ...(g.exclude_requester ? { exclude_requester: g.exclude_requester } : {}),
            ...(g.slack_responders?.length ? { slack_responders: g.slack_responders } : {}),
            comment: g.comment ?? 'optional',
            max_snoozes: g.max_snoozes,
            timeout: g.timeout,
            on_timeout: g.on_timeout,
            ...(g.escalation
              ? { escalation: { contacts: g.escalation.contacts, after_hours: g.escalation.after_hours } }
              : {}),
          },
        }
      : {}),
  };
}

/**
 * `POST /actions/{id}/replay` and bulk replays: a new action from a final one's definition, made through the one
 * create core (app/actions/create.ts: validation, SSRF, destination threshold, quota) in the caller's transaction,
 * so the replay, its link to the original and a bulk item's mark commit together.
 */
export class ActionReplays {
  constructor(private readonly p: ReplayDeps) {}

  async replay(principal: Principal, id: string, overrides: ReplayBody = {}): Promise<Action> {
    return this.p.store.transaction(async (db) => {
      const row = await findAction(db, principal.accountId, id);
      if (!row || row.chain_id !== null) throw new NotFoundError('action');
      return this.p.view(
        db,
        await this.replayRow(db, { accountId: principal.accountId, plan: principal.plan }, row, overrides),
      );
    });
  }

  /** Replays a row in the caller's transaction; 409 when it is not final. Answers the new action's row. */
  async replayRow(
    db: Sql,
    owner: { accountId: string; plan: Plan },
    row: ActionRow,
    overrides: ReplayBody,
  ): Promise<ActionRow> {
    if (!isTerminal(row.status)) {
      throw new ConflictError(
        `action ${row.id} is ${row.status}; only a final action (executed, failed, expired, cancelled) can be replayed`,
      );
    }
    if (!row.request && overrides.request)
      throw ValidationError.field('request', 'the original action has no request to change');
    const recipients = row.mode === 'approval' ? await recipientsOf(db, row.id) : [];
    const now = this.p.clock();
    const definition = replayDefinition(row, recipients, overrides, now);
    const prepared = prepareAction(definition, {
      plan: owner.plan,
      now,
      allowPrivateDestinations: this.p.allowPrivateDestinations,
      calendars: await calendarsNamedBy(db, owner.accountId, [definition]),
    });
    if (!prepared.ok) throw new ValidationError(prepared.errors);
    await checkCallbackHost(this.p.countDestination, db, owner.accountId, prepared.action.callbackUrl, now, {
      field: 'callback_url',
    });
    const created = await createAction(
      db,
      { owner, action: prepared.action, origin: { kind: 'request' }, now },
      { scheduler: this.p.scheduler, countDestination: this.p.countDestination, gates: this.p.gates },
    );
    return markReplay(db, created.id, row.id);
  }
}
