import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallbackDeliveries } from '../../server/src/app/deliveries/callbacks.js';
import { Deliveries } from '../../server/src/app/deliveries/deliver.js';
import { CircuitBreaker } from '../../server/src/app/destinations/breaker.js';
import type {
  ActionScheduler,
  ActionSettledHook,
  CallbackQueue,
  Outbound,
  OutboundResult,
  Clock,
  Timers,
} from '../../server/src/app/ports.js';
import { createWaits } from '../../server/src/app/waits.js';
import {
  type ActionRow,
  attemptPage,
  insertAction,
  type NewAction,
  updateAction,
} from '../../server/src/persistence/actions.js';
import { findCallback, insertCallback } from '../../server/src/persistence/callback-deliveries.js';
import { claimDue } from '../../server/src/persistence/delivery-claims.js';
import type { StoredRecurrence } from '../../server/src/persistence/entities/stored.js';
import { openTestDatabase } from '../support/in-process.js';
import { manualClock } from '../support/manual-clock.js';

/** Every attempt of an action, oldest first. */
const attemptsOf = async (db: Parameters<typeof attemptPage>[0], id: string) =>
  (await attemptPage(db, id, { limit: 1000 })).reverse();
import { eventually } from '../support/wait.js';
import { webhookActionRow } from '../support/seed.js';

// The delivery use case in-process, on a real PostgreSQL, with a fake clock, a scripted outbound client and
// recording scheduler and callback ports: what production runs, without a server or real waits.
describe('deliveries (in-process, fake clock)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;

  beforeAll(async () => {
    t = await openTestDatabase('deliveries');
    accountId = await t.newAccount();
    // Retry waits are jittered from Math.random (domain/delivery/retry-policy.ts): a draw of 0.5 leaves each wait as
    // its strategy says, so the times below are exact.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  const T0 = new Date('2026-03-02T10:00:00.000Z');

  function harness(
    answers: (OutboundResult | (() => Promise<OutboundResult>))[],
    timeScale = 1,
    realClock = false,
    settled?: ActionSettledHook,
    manual?: { clock: Clock; timers: Timers },
  ) {
    let now = T0;
    const sent: string[] = [];
    const readUpTo: number[] = [];
    const sentAt: number[] = [];
    const scheduled: { id: string; at: Date }[] = [];
    const callbacks: { id: string; event: string; payload: Record<string, unknown> }[] = [];
    const outbound: Outbound = {
      async send(req) {
        sent.push(req.url);
        readUpTo.push(req.maxResponseBytes);
        sentAt.push(Date.now());
        const next = answers.shift();
        if (!next) throw new Error('no scripted answer left');
        return typeof next === 'function' ? next() : next;
      },
    };
    const scheduler: ActionScheduler = {
      async schedule(_tx, id, at) {
        scheduled.push({ id, at });
      },
      async announce(_tx, attempts) {
        for (const a of attempts) scheduled.push({ id: a.actionId, at: a.dueAt });
      },
    };
    const callbackOutbox: CallbackQueue = {
      async enqueue(_tx, action, event, payload) {
        callbacks.push({ id: action.id, event, payload });
      },
      async redeliver() {
        throw new Error('no callback is delivered here');
      },
    };
    const clock = manual?.clock ?? (realClock ? () => new Date() : () => now);
    const deliveries = new Deliveries({
      store: t.database,
      breaker: new CircuitBreaker({
        store: t.database,
        clock,
        events: { record: async () => undefined },
        wakes: { wakeAt: async () => undefined },
      }),
      scheduler,
      callbacks: callbackOutbox,
      outbound,
      clock,
      ...(manual ? { timers: manual.timers } : {}),
      waits: createWaits(timeScale),
      ...(settled ? { settled } : {}),
    });
    return {
      deliveries,
      sent,
      readUpTo,
      sentAt,
      scheduled,
      callbacks,
      advance(ms: number) {
        now = new Date(now.getTime() + ms);
      },
      setNow(d: Date) {
        now = d;
      },
    };
  }

  const response = (status: number, headers: Record<string, string> = {}): OutboundResult => ({
    kind: 'response',
    status,
    headers,
    bodyExcerpt: 'ok',
    bodyTruncated: false,
    durationMs: 12,
  });

  async function newAction(over: Partial<NewAction> = {}): Promise<string> {
    const id = randomUUID();
    await insertAction(
      t.database.sql,
      webhookActionRow(accountId, T0, {
        id,
        name: 'ping',
        status: 'resolved',
        next_attempt_at: T0,
        request: { url: 'http://receiver.test/hook', method: 'POST', headers: {}, body: { a: 1 } },
        ...over,
      }),
    );
    return id;
  }

  async function row(id: string): Promise<ActionRow> {
    return t.database.sql.selectFrom('actions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('success: executed, the attempt logged with its lateness, nothing scheduled', async () => {
    const h = harness([response(200)]);
    const id = await newAction();
    h.advance(40);
    await h.deliveries.fire(id);
    const r = await row(id);
    expect(r.status).toBe('executed');
    expect(r.executed_at).toEqual(new Date(T0.getTime() + 40));
    expect(r.attempt_count).toBe(1);
    const [attempt] = await attemptsOf(t.database.sql, id);
    expect(attempt).toMatchObject({
      outcome: 'success',
      status_code: 200,
      lateness_ms: 40,
      attempt_number: 1,
    });
    expect(h.scheduled).toEqual([]);
  });

  it('the action-settled hook hears a listened success with its response, in its transaction; others not', async () => {
    const heard: { id: string; status: number; body: string; executed: string }[] = [];
    const listenTo = new Set<string>();
    const hook: ActionSettledHook = {
      listensTo: (r) => (listenTo.has(r.id) ? { responseBytes: 65_536 } : null),
      async succeeded(db, r, response) {
        // In the transaction that records the success: the row is still executing here.
        const current = await db
          .selectFrom('actions')
          .select('status')
          .where('id', '=', r.id)
          .executeTakeFirstOrThrow();
        heard.push({ id: r.id, ...response, executed: current.status });
      },
    };
    const h = harness([response(200), response(200)], 1, false, hook);
    const listened = await newAction();
    listenTo.add(listened);
    const plain = await newAction();
    await h.deliveries.fire(listened);
    await h.deliveries.fire(plain);
    expect(heard).toEqual([{ id: listened, status: 200, body: 'ok', executed: 'executing' }]);
    expect(h.readUpTo).toEqual([65_536, 2048]);
    expect((await row(listened)).status).toBe('executed');
    expect((await row(plain)).status).toBe('executed');
  });

  it('an attempt claimed ahead of its due time waits on the clock port until it is due, never before', async () => {
    const manual = manualClock(T0);
    const h = harness([response(200)], 1, false, undefined, manual);
    // Due 20 ms from now: within the claim's tolerance, so the claim is made now and the send waits.
    const id = await newAction({ next_attempt_at: new Date(T0.getTime() + 20) });
    const firing = h.deliveries.fire(id);
    // The claim's round trip is real; then the attempt waits on the manual timers alone.
    await eventually(async () => manual.pending() === 1);
    expect(h.sent).toEqual([]);
    expect((await row(id)).status).toBe('executing');
    await manual.advance(19);
    expect(h.sent).toEqual([]);
    await manual.advance(1);
    await firing;
    expect(h.sent).toHaveLength(1);
    expect(await attemptsOf(t.database.sql, id)).toEqual([
      expect.objectContaining({ outcome: 'success', lateness_ms: 0 }),
    ]);
  });

  it('a trigger that comes early, or again after the attempt, changes nothing', async () => {
    const h = harness([response(200)]);
    const id = await newAction({ next_attempt_at: new Date(T0.getTime() + 60_000) });
    await h.deliveries.fire(id);
    expect(h.sent).toEqual([]);
    expect((await row(id)).status).toBe('resolved');
    h.advance(60_000);
    await h.deliveries.fire(id);
    await h.deliveries.fire(id);
    expect(h.sent).toHaveLength(1);
  });

  it('exponential retries wait 1 min, then 5 min, then the action fails with its callback', async () => {
    const h = harness([response(503), response(500), response(502)]);
    const id = await newAction({ callback_url: 'http://receiver.test/cb' });
    await h.deliveries.fire(id);
    let r = await row(id);
    expect(r).toMatchObject({ status: 'resolved', attempt_count: 1, last_error: 'HTTP 503' });
    expect(r.next_attempt_at).toEqual(new Date(T0.getTime() + 60_000));
    expect(h.scheduled).toEqual([{ id, at: r.next_attempt_at }]);

    h.setNow(r.next_attempt_at!);
    await h.deliveries.fire(id);
    r = await row(id);
    expect(r.next_attempt_at!.getTime() - h.scheduled[0]!.at.getTime()).toBe(300_000);

    h.setNow(r.next_attempt_at!);
    await h.deliveries.fire(id);
    r = await row(id);
    expect(r).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null });
    expect(h.callbacks).toEqual([
      expect.objectContaining({
        id,
        event: 'action.failed',
        payload: expect.objectContaining({ total_attempts: 3 }),
      }),
    ]);
    expect((await attemptsOf(t.database.sql, id)).map((a) => a.outcome)).toEqual([
      'retryable',
      'retryable',
      'retryable',
    ]);
  });

  it('linear retries wait 300 s times the attempts made', async () => {
    const h = harness([{ kind: 'connection', durationMs: 3, message: 'ECONNREFUSED' }, response(500)]);
    const id = await newAction({ retry_strategy: 'linear' });
    await h.deliveries.fire(id);
    const first = (await row(id)).next_attempt_at!;
    expect(first).toEqual(new Date(T0.getTime() + 300_000));
    h.setNow(first);
    await h.deliveries.fire(id);
    expect((await row(id)).next_attempt_at).toEqual(new Date(first.getTime() + 600_000));
  });

  it('a permanent answer fails at once; a Retry-After longer than the strategy wins', async () => {
    const h = harness([response(400), response(429, { 'retry-after': '900' })]);
    const rejected = await newAction();
    await h.deliveries.fire(rejected);
    expect(await row(rejected)).toMatchObject({ status: 'failed', attempt_count: 1, last_error: 'HTTP 400' });

    const limited = await newAction();
    await h.deliveries.fire(limited);
    expect((await row(limited)).next_attempt_at).toEqual(new Date(T0.getTime() + 900_000));
  });

  it('the time scale shortens the waits the service chooses, through the same code', async () => {
    const h = harness([response(503)], 60);
    const id = await newAction();
    await h.deliveries.fire(id);
    expect((await row(id)).next_attempt_at).toEqual(new Date(T0.getTime() + 1_000));
  });

  const hourly: StoredRecurrence = { frequency: 1, unit: 'h', end_type: 'count', max_occurrences: 3 };

  it('recurrence steps to the next occurrence from the anchor, skips missed ones, and ends', async () => {
    const h = harness([response(200), response(200), response(200)]);
    const id = await newAction({ recurrence: hourly, recurrence_anchor: T0 });
    await h.deliveries.fire(id);
    let r = await row(id);
    expect(r).toMatchObject({
      status: 'resolved',
      recurrence_count: 1,
      recurrence_index: 1,
      attempt_count: 0,
    });
    expect(r.scheduled_for).toEqual(new Date(T0.getTime() + 3_600_000));
    expect(h.callbacks.map((c) => c.event)).toEqual(['action.executed']);

    // The service was down for hours: the latest occurrence due fires once, now, and the schedule goes on from it.
    h.setNow(new Date(T0.getTime() + 5.5 * 3_600_000));
    await h.deliveries.fire(id);
    r = await row(id);
    expect(r).toMatchObject({ recurrence_count: 2, recurrence_index: 5 });
    expect(r.scheduled_for).toEqual(new Date(T0.getTime() + 5 * 3_600_000));
    expect(r.next_attempt_at).toEqual(new Date(T0.getTime() + 5.5 * 3_600_000));

    await h.deliveries.fire(id);
    r = await row(id);
    expect(r).toMatchObject({ status: 'executed', recurrence_count: 3, next_attempt_at: null });
  });

  it('only a send still to be counted leaves the one-statement claim; an uncounted (verified) series never does', async () => {
    const series = async (counted: number | null) => {
      const id = await newAction({ recurrence: hourly, recurrence_anchor: T0, counted_occurrence: counted });
      await updateAction(t.database.sql, id, { recurrence_index: 3, updated_at: T0 });
      return id;
    };
    const uncounted = await series(null);
    const counted = await series(3);
    const toCount = await series(2);
    const found = await claimDue(t.database.sql, {
      actionIds: [uncounted, counted, toCount],
      leaseUntil: new Date(T0.getTime() + 60_000),
      dueBy: T0,
      now: T0,
    });
    expect(found.get(uncounted)?.claimed).toBe(true);
    expect(found.get(counted)?.claimed).toBe(true);
    expect(found.get(toCount)?.claimed).toBe(false);
    expect((await row(toCount)).status).toBe('resolved');
  });

  it('an expired lease hands the action on: the lost attempt is logged, then retried at once, or failed when it was the last', async () => {
    let release: (r: OutboundResult) => void = () => undefined;
    const stalled = () => new Promise<OutboundResult>((resolve) => (release = resolve));
    const h = harness([stalled, response(200)]);
    const id = await newAction({ max_attempts: 2 });
    const inFlight = h.deliveries.fire(id);
    await expect.poll(async () => (await row(id)).status).toBe('executing');

    expect(await h.deliveries.sweepExpiredLeases()).toBe(0);
    h.advance(h.deliveries.leaseMs() + 1);
    expect(await h.deliveries.sweepExpiredLeases()).toBe(1);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'resolved', lease_until: null });
    expect((await attemptsOf(t.database.sql, id))[0]).toMatchObject({
      outcome: 'retryable',
      attempt_number: 1,
    });

    // The stalled worker answers late: its attempt is logged, but the action is no longer its own.
    release(response(200));
    await inFlight;
    expect((await row(id)).status).toBe('resolved');

    await h.deliveries.fire(id);
    expect(await row(id)).toMatchObject({ status: 'executed', attempt_count: 2 });

    const last = await newAction({ max_attempts: 1, status: 'executing' });
    await updateAction(t.database.sql, last, { lease_until: T0, attempt_count: 1, updated_at: T0 });
    expect(await h.deliveries.sweepExpiredLeases()).toBe(1);
    expect(await row(last)).toMatchObject({ status: 'failed' });
  });

  it('racing triggers claim the attempt once', async () => {
    const h = harness(Array.from({ length: 8 }, () => response(200)));
    const id = await newAction();
    await Promise.all(Array.from({ length: 8 }, () => h.deliveries.fire(id)));
    expect(h.sent).toHaveLength(1);
    expect(await attemptsOf(t.database.sql, id)).toHaveLength(1);
  });

  it('a claim made a little ahead (a timer fires CLAIM_LEAD_MS early) still sends at the due time, never before', async () => {
    const h = harness([response(200)], 1, true);
    const due = new Date(Date.now() + 15);
    const id = await newAction({ scheduled_for: due, next_attempt_at: due });
    await h.deliveries.fire(id);
    expect(h.sent).toHaveLength(1);
    expect(h.sentAt[0]).toBeGreaterThanOrEqual(due.getTime());
    expect((await attemptsOf(t.database.sql, id))[0]).toMatchObject({ outcome: 'success' });
  });

  it('two workers firing overlapping batches in opposite orders deliver each attempt once, without deadlock', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, () => newAction()));
    const a = harness(ids.map(() => response(200)));
    const b = harness(ids.map(() => response(200)));
    // Each worker claims and completes its whole turn in one statement; row locks are taken in id order.
    await Promise.all([
      ...ids.map((id) => a.deliveries.fire(id)),
      ...[...ids].reverse().map((id) => b.deliveries.fire(id)),
    ]);
    expect(a.sent.length + b.sent.length).toBe(ids.length);
    for (const id of ids) {
      expect(await row(id)).toMatchObject({ status: 'executed', attempt_count: 1 });
      expect(await attemptsOf(t.database.sql, id)).toHaveLength(1);
    }
  });

  // A record the database drops (a connection killed under it) is tried again within the lease, so the attempt is
  // recorded once and not sent again by the lease sweep; a retry after a commit whose answer was lost writes nothing.
  it('a record the database drops is tried again: recorded once, sent once', async () => {
    const lost = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    const h = harness([response(503), response(503)]);
    const refused = await newAction();
    const spy = vi.spyOn(t.database, 'transaction').mockRejectedValueOnce(lost);
    await h.deliveries.fire(refused);
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();

    const committed = await newAction();
    const real = t.database.transaction.bind(t.database);
    const after = vi.spyOn(t.database, 'transaction').mockImplementationOnce(async (fn) => {
      await real(fn);
      throw lost;
    });
    await h.deliveries.fire(committed);
    expect(after).toHaveBeenCalledTimes(2);
    after.mockRestore();

    expect(h.sent).toHaveLength(2);
    for (const id of [refused, committed]) {
      expect(await row(id)).toMatchObject({ status: 'resolved', attempt_count: 1, last_status_code: 503 });
      expect((await attemptsOf(t.database.sql, id)).map((a) => a.status_code)).toEqual([503]);
    }
  });
});

describe('callback deliveries (in-process, fake clock)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  beforeAll(async () => {
    t = await openTestDatabase('callbacks');
    accountId = await t.newAccount();
  });
  afterAll(async () => {
    await t?.close();
  });

  const now = new Date('2026-03-02T10:00:00.000Z');
  const answer = (status: number): OutboundResult => ({
    kind: 'response',
    status,
    headers: {},
    bodyExcerpt: '',
    bodyTruncated: false,
    durationMs: 5,
  });

  async function pendingCallback(): Promise<string> {
    const actionId = randomUUID();
    await insertAction(t.database.sql, {
      id: actionId,
      traceparent: null,
      created_via: 'api',
      counted_occurrence: null,
      account_id: accountId,
      name: 'cb',
      description: null,
      mode: 'webhook',
      status: 'executed',
      timezone: 'UTC',
      scheduled_for: now,
      next_attempt_at: null,
      idempotency_key: null,
      dedup_keys: [],
      max_attempts: 1,
      retry_strategy: 'exponential',
      request: { url: 'http://receiver.test/hook', method: 'POST', headers: {} },
      webhook_secret: 'whsec_0123456789abcdef',
      callback_url: 'http://receiver.test/cb',
      coordination: null,
      recurrence: null,
      recurrence_anchor: null,
      gate: null,
      chain_id: null,
      chain_step_index: null,
      created_at: now,
      updated_at: now,
    });
    const id = randomUUID();
    await insertCallback(t.database.sql, {
      id,
      accountId,
      actionId,
      event: 'action.executed',
      url: 'http://receiver.test/cb',
      envelope: { id, event: 'action.executed' },
      now,
    });
    return id;
  }

  function harness(answers: OutboundResult[]) {
    const redelivered: { id: string; at: Date }[] = [];
    const headers: Record<string, string>[] = [];
    const deliveries = new CallbackDeliveries({
      store: t.database,
      outbox: {
        enqueue: async () => undefined,
        async redeliver(_db, id, at) {
          redelivered.push({ id, at });
        },
      },
      outbound: {
        async send(req) {
          headers.push(req.headers);
          return answers.shift()!;
        },
      },
      waits: createWaits(1),
      clock: () => now,
      // No jitter: the retry times below are exact.
      random: () => 0.5,
    });
    return { deliveries, redelivered, headers };
  }

  const statusOf = async (id: string) => (await findCallback(t.database.sql, id))!;

  it('2xx delivers, signed; a permanent answer rejects; nothing is queued again', async () => {
    const h = harness([answer(204), answer(410)]);
    const ok = await pendingCallback();
    await h.deliveries.deliver(ok);
    expect(await statusOf(ok)).toMatchObject({ status: 'delivered', attempt_count: 1 });
    expect(h.headers[0]).toHaveProperty('webhook-signature');
    const gone = await pendingCallback();
    await h.deliveries.deliver(gone);
    expect(await statusOf(gone)).toMatchObject({ status: 'rejected' });
    await h.deliveries.deliver(ok);
    expect(h.headers).toHaveLength(2);
    expect(h.redelivered).toEqual([]);
  });

  it('retries after 1 and 5 minutes, then abandons after the third attempt', async () => {
    const h = harness([answer(503), answer(503), answer(503)]);
    const id = await pendingCallback();
    for (let i = 0; i < 3; i++) await h.deliveries.deliver(id);
    expect(h.redelivered.map((r) => r.at.getTime() - now.getTime())).toEqual([60_000, 300_000]);
    expect(await statusOf(id)).toMatchObject({ status: 'abandoned', attempt_count: 3 });
  });
});
