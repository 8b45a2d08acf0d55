import pg from 'pg';
import { destinationOrigin } from '../../server/src/domain/destinations/origin.js';
import type { NewAction } from '../../server/src/persistence/actions.js';
import { timeOrderedId } from '../../server/src/persistence/ids.js';
import { eventually } from './wait.js';

/**
 * Test-only seeding: `count` webhook actions of one account inserted with generate_series in one statement, for the
 * scenarios that need thousands of rows (bulk operations). The rows are what the service would write for actions
 * in that state; `lastAttempt` fills the columns a recorded attempt leaves on a failed action.
 */
export async function seedActions(
  databaseUrl: string,
  s: {
    accountId: string;
    count: number;
    status: 'scheduled' | 'failed' | 'executed';
    url: string;
    host: string;
    /** Default: a year away for scheduled actions, an hour ago otherwise. */
    scheduledFor?: Date;
    name?: string;
    lastAttempt?: { statusCode: number | null; errorClass: string };
  },
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'test-seed' });
  client.on('error', () => {});
  await client.connect();
  try {
    const now = Date.now();
    const at =
      s.scheduledFor ?? new Date(s.status === 'scheduled' ? now + 365 * 86_400_000 : now - 3_600_000);
    await client.query(
      `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at, max_attempts,
         attempt_count, retry_strategy, request, destination_host, destination_origin, last_attempt_at, last_status_code, last_error_class,
         last_lateness_ms, last_error, created_at, updated_at)
       select gen_random_uuid(), $1, $2 || ' ' || i, 'webhook', $3::text, 'UTC', $4::timestamptz,
              case when $3::text = 'scheduled' then $4::timestamptz end, 1, case when $3::text = 'scheduled' then 0 else 1 end,
              'exponential', jsonb_build_object('url', $5::text, 'method', 'POST', 'headers', '{}'::jsonb,
              'body', jsonb_build_object('n', i)), $6, $10,
              case when $7::text is not null then $4::timestamptz end, $8::int, $7::text,
              case when $7::text is not null then 3 end, case when $3::text = 'failed' then 'HTTP ' || coalesce($8::text, '-') end,
              now() - interval '1 hour' + i * interval '1 ms', now() - interval '1 hour' + i * interval '1 ms'
         from generate_series(1, $9::int) i`,
      [
        s.accountId,
        s.name ?? 'seeded',
        s.status,
        at,
        s.url,
        s.host,
        s.lastAttempt?.errorClass ?? null,
        s.lastAttempt?.statusCode ?? null,
        s.count,
        destinationOrigin(s.url),
      ],
    );
    // As the create's insert registers an action's origin (server/src/persistence/action-origins.ts).
    await client.query(
      'insert into action_origins (account_id, origin) values ($1, $2) on conflict do nothing',
      [s.accountId, destinationOrigin(s.url)],
    );
  } finally {
    await client.end();
  }
}

/** One value of plain SQL, for assertions on the database itself. */
export async function sqlValue<T>(databaseUrl: string, text: string, params: unknown[] = []): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'test-sql' });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query(text, params);
    return Object.values(rows[0] ?? {})[0] as T;
  } finally {
    await client.end();
  }
}

/**
 * Waits until every transaction begun before the call has ended, in any database of the server, and no other session
 * of this database holds a snapshot (autovacuum's included). Until then a page's pruning may keep the row versions an
 * update left behind (a session's snapshot counts every transaction still running on the server, whatever its
 * database), so a test that counts HOT updates would count other sessions' timing.
 */
export async function untilEarlierTransactionsEnd(databaseUrl: string, timeoutMs = 30_000): Promise<void> {
  // The first transaction id not yet given out: every transaction holding an earlier one began before this call.
  // (Read from a snapshot rather than taken: taking one would start a transaction of its own.)
  const mark = await sqlValue<string>(databaseUrl, 'select pg_snapshot_xmax(pg_current_snapshot())::text');
  await eventually(
    () =>
      sqlValue<boolean>(
        databaseUrl,
        `select pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8
            and not exists (select from pg_stat_activity where datname = current_database()
                               and pid <> pg_backend_pid() and backend_xmin is not null)`,
        [mark],
      ),
    timeoutMs,
    50,
  );
}

/**
 * One webhook action's row as a create writes it, for tests that set up rows by hand (a state, a time): `at` is its
 * creation and schedule, its id time-ordered of `at` as every action's is; `over` changes any column.
 */
export function webhookActionRow(accountId: string, at: Date, over: Partial<NewAction> = {}): NewAction {
  return {
    id: timeOrderedId(at.getTime()),
    traceparent: null,
    created_via: 'api',
    counted_occurrence: null,
    account_id: accountId,
    name: 'webhook',
    description: null,
    mode: 'webhook',
    status: 'scheduled',
    timezone: 'UTC',
    scheduled_for: at,
    next_attempt_at: null,
    idempotency_key: null,
    dedup_keys: [],
    max_attempts: 3,
    retry_strategy: 'exponential',
    request: { url: 'http://127.0.0.1:9/hook', method: 'POST', headers: {}, body: null },
    webhook_secret: null,
    callback_url: null,
    coordination: null,
    recurrence: null,
    recurrence_anchor: null,
    gate: null,
    chain_id: null,
    chain_step_index: null,
    created_at: at,
    updated_at: at,
    ...over,
  };
}
