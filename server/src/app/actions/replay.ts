import type { Action, ActionCreateParsed, ReplayBody } from '@sched/contract';
import { isTerminal } from '../../domain/action/states.js';
import { type ActionRow, findAction, markReplay } from '../../persistence/actions.js';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import type { Recipient } from '../../persistence/approvals/recipients.js';
import type { Sql } from '../../persistence/database.js';
import type { Principal } from '../accounts.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { Clock, Store } from '../ports.js';
import type { CreateResult } from './service.js';

/**
 * The create path, bound to a transaction: the replay and its link to the original commit together, and a bulk
 * replay marks its item in that same transaction. Until the one create core lands it is ActionService.create over a
 * store that is the caller's transaction (main.ts).
 */
export type CreateIn = (db: Sql) => (principal: Principal, body: ActionCreateParsed) => Promise<CreateResult>;

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
    ...(g
      ? {
          gate: {
            message: g.message,
            recipients: recipients.filter((r) => r.role === 'recipient').map((r) => r.reference),
            ...(g.channels.length > 0 ? { channels: g.channels as never } : {}),
            buttons: [...g.buttons],
            confirmation_mode: g.confirmation_mode,
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

/** `POST /actions/{id}/replay` and bulk replays: a new action from a final one's definition. */
export class ActionReplays {
  constructor(
    private readonly store: Store,
    private readonly createIn: CreateIn,
    private readonly clock: Clock,
  ) {}

  async replay(principal: Principal, id: string, overrides: ReplayBody = {}): Promise<Action> {
    return this.store.transaction(async (db) => {
      const row = await findAction(db, principal.accountId, id);
      if (!row || row.chain_id !== null) throw new NotFoundError('action');
      return this.replayRow(db, principal, row, overrides);
    });
  }

  /** Replays a row in the caller's transaction; 409 when it is not final (or a live action holds its dedup key). */
  async replayRow(db: Sql, principal: Principal, row: ActionRow, overrides: ReplayBody): Promise<Action> {
    if (!isTerminal(row.status)) {
      throw new ConflictError(
        `action ${row.id} is ${row.status}; only a final action (executed, failed, expired, cancelled) can be replayed`,
      );
    }
    if (!row.request && overrides.request)
      throw ValidationError.field('request', 'the original action has no request to change');
    const recipients = row.mode === 'approval' ? await recipientsOf(db, row.id) : [];
    const body = replayDefinition(row, recipients, overrides, this.clock());
    const created = await this.createIn(db)(principal, body);
    if (created.kind === 'skipped')
      throw new ConflictError(`not replayed: ${created.reason} (live action ${created.action.id})`);
    await markReplay(db, created.action.id, row.id);
    return { ...created.action, replay_of: row.id };
  }
}
