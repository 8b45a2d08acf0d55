import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planActionEvent } from '../../server/src/app/actions/transition.js';
import type { ActionEvent } from '../../server/src/domain/action/states.js';
import type { Sql } from '../../server/src/persistence/database.js';
import {
  type AttemptRecord,
  completeOneShots,
  latestAttempt,
  recordOutcomes,
} from '../../server/src/persistence/deliveries.js';
import { openTestDatabase } from '../support/in-process.js';
import { seedActions, sqlValue } from '../support/seed.js';

// The record stage's outcomes beyond a plain success (the next occurrence, a retry, a failure) are written in one
// statement for any number of actions: each row's change as the state table plans it (`planActionEvent`), its
// attempt logged beside it, and nothing at all for an action whose lease was lost meanwhile.
describe('outcomes written in one statement', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;

  beforeAll(async () => {
    t = await openTestDatabase('record-outcomes');
  });
  afterAll(async () => {
    await t?.close();
  });

  async function inFlight(n: number): Promise<string[]> {
    const accountId = await t.newAccount();
    await seedActions(t.url, {
      accountId,
      count: n,
      status: 'scheduled',
      url: 'http://127.0.0.1:9/h',
      host: '127.0.0.1',
      scheduledFor: new Date(Date.now() - 1_000),
    });
    await sqlValue(
      t.url,
      `update actions set status = 'executing', attempt_count = 1, max_attempts = 3,
              lease_until = now() + interval '1 minute' where account_id = $1`,
      [accountId],
    );
    return sqlValue<string[]>(
      t.url,
      `select array_agg(id order by name) from actions where account_id = $1`,
      [accountId],
    );
  }

  const attemptOf = (id: string, statusCode: number | null, attemptNumber = 1): AttemptRecord => ({
    actionId: id,
    attemptNumber,
    dueAt: new Date(Date.now() - 1_000),
    startedAt: new Date(),
    durationMs: 4,
    statusCode,
    outcome: statusCode === 200 ? 'success' : statusCode === 503 ? 'retryable' : 'permanent',
    errorClass: statusCode === 200 ? null : 'http',
    error: statusCode === 200 ? null : `HTTP ${statusCode}`,
    excerpt: null,
    truncated: false,
  });

  /** The updates of `actions` and the attempts logged by `fn`, in its own transaction. */
  async function counted(fn: (db: Sql) => Promise<Set<string>>) {
    return t.database.transaction(async (db) => {
      const stats = async () =>
        (await db
          .selectFrom('pg_stat_xact_user_tables' as never)
          .select(['n_tup_upd as updated'] as never)
          .where('relname' as never, '=', 'actions' as never)
          .executeTakeFirstOrThrow()) as { updated: string };
      const before = Number((await stats()).updated);
      const done = await fn(db);
      return { done, updated: Number((await stats()).updated) - before };
    });
  }

  it('a next occurrence, a retry, a failure and a lost lease, in one call', async () => {
    const [recur, retry, fail, lost] = await inFlight(4);
    const now = new Date();
    const next = new Date(now.getTime() + 3_600_000);
    const plan = (event: ActionEvent, a: AttemptRecord, change: Parameters<typeof planActionEvent>[2]) => ({
      attempt: a,
      changes: {
        ...planActionEvent({ status: 'executing' }, event, {
          ...change,
          set: { ...change.set, ...latestAttempt(a) },
        }).fields,
        lease_until: null,
        updated_at: now,
      },
    });
    const { done, updated } = await counted((db) =>
      recordOutcomes(db, [
        plan('recur', attemptOf(recur!, 200), {
          nextAttemptAt: next,
          set: { scheduled_for: next, attempt_count: 0, recurrence_count: 1, executed_at: now },
        }),
        plan('deliver_failed_retryable', attemptOf(retry!, 503), { nextAttemptAt: next, error: 'HTTP 503' }),
        plan('deliver_failed_permanently', attemptOf(fail!, 400), { error: 'HTTP 400' }),
        // Claimed again by another worker after its lease ran out: this attempt is no longer the row's.
        plan('deliver_failed_permanently', attemptOf(lost!, 400, 0), { error: 'HTTP 400' }),
      ]),
    );
    expect([...done].sort()).toEqual([recur, retry, fail].sort());
    expect(updated).toBe(3);

    const rows = await t.database.sql
      .selectFrom('actions')
      .select([
        'id',
        'status',
        'next_attempt_at',
        'last_error',
        'lease_until',
        'attempt_count',
        'last_status_code',
      ])
      .where('id', 'in', [recur!, retry!, fail!, lost!])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(recur!)).toMatchObject({ status: 'resolved', next_attempt_at: next, attempt_count: 0 });
    expect(byId.get(recur!)?.lease_until).toBeNull();
    expect(byId.get(retry!)).toMatchObject({
      status: 'resolved',
      next_attempt_at: next,
      last_error: 'HTTP 503',
    });
    expect(byId.get(fail!)).toMatchObject({ status: 'failed', next_attempt_at: null, last_status_code: 400 });
    expect(byId.get(lost!)).toMatchObject({ status: 'executing', last_status_code: null });

    const logged = await sqlValue<string[]>(
      t.url,
      `select array_agg(action_id::text) from delivery_attempts where action_id = any($1::uuid[])`,
      [[recur, retry, fail, lost]],
    );
    expect([...logged].sort()).toEqual([recur, retry, fail].sort());
  });

  it('logs every column of the attempt as given, text of any kind, through both statements', async () => {
    const [oneShot, failed] = await inFlight(2);
    const text = 'a "quoted", back\\slashed, {braced}\nline, caf\u00e9 \u2713 \u{1F600}, NULL';
    const attempt = (id: string, statusCode: number): AttemptRecord => ({
      ...attemptOf(id, statusCode),
      dueAt: new Date('2026-11-30T08:00:00.123Z'),
      startedAt: new Date('2026-11-30T08:00:00.456Z'),
      durationMs: 12.6,
      held: { ms: 250.4, by: 'flow_control' },
      // A lone surrogate half is stored as UTF-8 would have it, U+FFFD; the rest as it is.
      error: statusCode === 200 ? null : `${text} \ud800`,
      excerpt: `${text} \udc00`,
      truncated: true,
    });
    const now = new Date();
    await t.database.transaction(async (db) => {
      expect([...(await completeOneShots(db, [attempt(oneShot!, 200)], { to: 'executed', now }))]).toEqual([
        oneShot,
      ]);
      const a = attempt(failed!, 400);
      const changes = {
        ...planActionEvent({ status: 'executing' }, 'deliver_failed_permanently', {
          error: 'HTTP 400',
          set: latestAttempt(a),
        }).fields,
        lease_until: null,
        updated_at: now,
      };
      expect([...(await recordOutcomes(db, [{ attempt: a, changes }]))]).toEqual([failed]);
    });
    const logged = await t.database.sql
      .selectFrom('delivery_attempts')
      .select(['action_id', 'due_at', 'started_at', 'lateness_ms', 'duration_ms', 'status_code', 'outcome'])
      .select(['error', 'response_excerpt', 'response_truncated', 'error_class', 'held_ms', 'held_by'])
      .where('action_id', 'in', [oneShot!, failed!])
      .execute();
    const byAction = new Map(logged.map((r) => [r.action_id, r]));
    const common = {
      due_at: new Date('2026-11-30T08:00:00.123Z'),
      started_at: new Date('2026-11-30T08:00:00.456Z'),
      lateness_ms: 333,
      duration_ms: 13,
      response_excerpt: `${text} \ufffd`,
      response_truncated: true,
      held_ms: 250,
      held_by: 'flow_control',
    };
    expect(byAction.get(oneShot!)).toEqual({
      ...common,
      action_id: oneShot,
      status_code: 200,
      outcome: 'success',
      error: null,
      error_class: null,
    });
    expect(byAction.get(failed!)).toEqual({
      ...common,
      action_id: failed,
      status_code: 400,
      outcome: 'permanent',
      error: `${text} \ufffd`,
      error_class: 'http',
    });
  });

  it('refuses a column no outcome writes, before any statement', async () => {
    const [id] = await inFlight(1);
    await expect(
      recordOutcomes(t.database.sql, [
        { attempt: attemptOf(id!, 200), changes: { status: 'executed', name: 'x', updated_at: new Date() } },
      ]),
    ).rejects.toThrow(/cannot write name/);
  });
});
