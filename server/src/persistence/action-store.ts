import type { QueryResultRow } from 'pg';
import type { ActionState } from '../domain/action/states.js';
import type { StoredGate } from './approvals/gates.js';
import type { Sql } from './db.js';

/** The gate's shape is declared with the approval side's persistence. */
export type { StoredGate, StoredRecipientTarget } from './approvals/gates.js';

/** An `actions` row as SQL returns it (timestamps may arrive as text through the ORM's pool). */
export interface ActionRow extends QueryResultRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  mode: 'webhook' | 'approval';
  status: ActionState;
  timezone: string;
  scheduled_for: Date | string;
  next_attempt_at: Date | string | null;
  executed_at: Date | string | null;
  idempotency_key: string | null;
  dedup_keys: string[];
  attempt_count: number;
  max_attempts: number;
  retry_strategy: 'exponential' | 'linear';
  manual_retry_count: number;
  request: StoredRequest | null;
  webhook_secret: string | null;
  callback_url: string | null;
  coordination: StoredCoordination | null;
  reschedule_count: number;
  recurrence: StoredRecurrence | null;
  recurrence_anchor: Date | string | null;
  recurrence_count: number;
  recurrence_index: number;
  last_executed_at: Date | string | null;
  lease_until: Date | string | null;
  last_error: string | null;
  gate: StoredGate | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface StoredRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body?: unknown;
}

export interface StoredCoordination {
  on_create?: 'skip_if_exists' | 'replace_existing' | 'cancel_and_replace';
  on_execute?: {
    condition:
      | 'skip_if_previous_pending'
      | 'execute_if_previous_failed'
      | 'execute_if_previous_succeeded'
      | 'wait_for_previous';
    on_condition_not_met?: 'cancel' | 'reschedule' | 'fail';
    reschedule_delay: number;
    max_reschedules: number;
  };
}

export interface StoredRecurrence {
  frequency: number;
  unit: 'm' | 'h' | 'd' | 'w' | 'M';
  end_type: 'never' | 'count' | 'date';
  max_occurrences?: number;
  end_date?: string;
}

export interface DeliveryAttemptRow extends QueryResultRow {
  id: string;
  action_id: string;
  attempt_number: number;
  due_at: Date | string;
  started_at: Date | string;
  lateness_ms: number;
  duration_ms: number;
  status_code: number | null;
  outcome: 'success' | 'retryable' | 'permanent';
  error: string | null;
  response_excerpt: string | null;
  response_truncated: boolean;
}

export type NewAction = Omit<
  ActionRow,
  | 'attempt_count'
  | 'manual_retry_count'
  | 'reschedule_count'
  | 'recurrence_count'
  | 'recurrence_index'
  | 'last_executed_at'
  | 'lease_until'
  | 'last_error'
  | 'executed_at'
  | 'created_at'
  | 'updated_at'
>;

const LIVE = `('scheduled', 'resolved', 'executing', 'awaiting_response')`;

/** SQL for actions and their attempt log. Every query names the account, so tenancy cannot be forgotten. */
export const actionSql = {
  async insert(tx: Sql, a: NewAction): Promise<ActionRow> {
    const [row] = await tx.query<ActionRow>(
      `insert into actions (id, account_id, name, description, mode, status, timezone, scheduled_for, next_attempt_at,
         idempotency_key, dedup_keys, max_attempts, retry_strategy, request, webhook_secret, callback_url, coordination,
         recurrence, recurrence_anchor, gate, created_at, updated_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20, now(), now())
       returning *`,
      [
        a.id,
        a.account_id,
        a.name,
        a.description,
        a.mode,
        a.status,
        a.timezone,
        a.scheduled_for,
        a.next_attempt_at,
        a.idempotency_key,
        a.dedup_keys,
        a.max_attempts,
        a.retry_strategy,
        a.request === null ? null : JSON.stringify(a.request),
        a.webhook_secret,
        a.callback_url,
        a.coordination === null ? null : JSON.stringify(a.coordination),
        a.recurrence === null ? null : JSON.stringify(a.recurrence),
        a.recurrence_anchor,
        a.gate === null ? null : JSON.stringify(a.gate),
      ],
    );
    return row!;
  },

  async find(
    db: Sql,
    accountId: string,
    id: string,
    opts: { forUpdate?: boolean } = {},
  ): Promise<ActionRow | null> {
    const [row] = await db.query<ActionRow>(
      `select * from actions where id = $1 and account_id = $2${opts.forUpdate ? ' for update' : ''}`,
      [id, accountId],
    );
    return row ?? null;
  },

  async findLiveByIdempotencyKey(db: Sql, accountId: string, key: string): Promise<ActionRow | null> {
    const [row] = await db.query<ActionRow>(
      `select * from actions where account_id = $1 and idempotency_key = $2 and status in ${LIVE}
       order by created_at desc limit 1`,
      [accountId, key],
    );
    return row ?? null;
  },

  async latestByIdempotencyKey(db: Sql, accountId: string, key: string): Promise<ActionRow | null> {
    const [row] = await db.query<ActionRow>(
      'select * from actions where account_id = $1 and idempotency_key = $2 order by created_at desc limit 1',
      [accountId, key],
    );
    return row ?? null;
  },

  /** Actions sharing at least one dedup key, newest first. */
  async sharingKeys(
    db: Sql,
    accountId: string,
    keys: string[],
    opts: { liveOnly?: boolean; excludeId?: string } = {},
  ) {
    return db.query<Pick<ActionRow, 'id' | 'name' | 'status' | 'created_at'>>(
      `select id, name, status, created_at from actions
        where account_id = $1 and dedup_keys && $2::text[] ${opts.liveOnly ? `and status in ${LIVE}` : ''}
          and ($3::uuid is null or id <> $3::uuid)
        order by created_at desc, id desc`,
      [accountId, keys, opts.excludeId ?? null],
    );
  },

  async attempts(db: Sql, actionId: string): Promise<DeliveryAttemptRow[]> {
    return db.query<DeliveryAttemptRow>(
      'select * from delivery_attempts where action_id = $1 order by attempt_number, started_at',
      [actionId],
    );
  },

  /** Serialises work on one account-scoped name (an idempotency key, a dedup key) until the transaction ends. */
  async lock(tx: Sql, accountId: string, kind: string, value: string): Promise<void> {
    await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `${accountId}:${kind}:${value}`,
    ]);
  },
};
