import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliveries } from '../../server/src/app/deliveries/deliver.js';
import { CircuitBreaker } from '../../server/src/app/destinations/breaker.js';
import type { DestinationWake, OperatorEvent, Outbound, OutboundResult } from '../../server/src/app/ports.js';
import { createWaits } from '../../server/src/app/waits.js';
import { type ActionRow, attemptPage, insertAction } from '../../server/src/persistence/actions.js';
import { findDestination, upsertDestination } from '../../server/src/persistence/destinations.js';
import { openTestDatabase } from '../support/in-process.js';
import { eventually } from '../support/wait.js';
import { webhookActionRow } from '../support/seed.js';

// The circuit breaker in-process: the delivery use case and the breaker on a real PostgreSQL, a
// fake clock, a scripted outbound client, and recording ports for the operator events and the destination wakes.
describe('circuit breaker (in-process, fake clock)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  const T0 = new Date('2026-03-02T10:00:00.000Z');
  let now = T0;
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  /** Each event with the host's circuit state as its transaction sees it and as committed (another connection). */
  const events: { event: OperatorEvent; inTx: string; committed: string | undefined }[] = [];
  const wakes: { wake: DestinationWake; at: Date }[] = [];
  const answers: (() => Promise<OutboundResult>)[] = [];
  const sent: string[] = [];
  const outbound: Outbound = {
    async send(req) {
      sent.push(req.url);
      const next = answers.shift();
      if (!next) throw new Error('no scripted answer left');
      return next();
    },
  };
  const status = (code: number) => async (): Promise<OutboundResult> => ({
    kind: 'response',
    status: code,
    headers: {},
    bodyExcerpt: '',
    bodyTruncated: false,
    durationMs: 5,
  });
  let breaker: CircuitBreaker;
  let outside: pg.Client;
  let deliveries: Deliveries;

  beforeAll(async () => {
    t = await openTestDatabase('circuit');
    accountId = await t.newAccount();
    outside = new pg.Client({ connectionString: t.url });
    await outside.connect();
    breaker = new CircuitBreaker({
      store: t.database,
      clock: () => now,
      events: {
        record: async (tx, event) => {
          const inTx = (await findDestination(tx, event.account_id, `https://${event.destination_host!}`))!
            .circuit_state;
          // Another connection (Store.sql would follow the current transaction) sees what is committed.
          const { rows } = await outside.query<{ circuit_state: string }>(
            'select circuit_state from destinations where account_id = $1 and origin = $2',
            [event.account_id, `https://${event.destination_host}`],
          );
          events.push({ event, inTx, committed: rows[0]?.circuit_state });
        },
      },
      wakes: { wakeAt: async (_tx, wake, at) => void wakes.push({ wake, at }) },
    });
    deliveries = new Deliveries({
      store: t.database,
      scheduler: { schedule: async () => undefined, announce: async () => undefined },
      callbacks: {
        enqueue: async () => undefined,
        redeliver: async () => undefined,
      },
      outbound,
      clock: () => now,
      waits: createWaits(1),
      breaker,
    });
  });
  afterAll(async () => {
    await outside?.end();
    await t?.close();
  });

  async function newAction(host: string): Promise<string> {
    const id = randomUUID();
    await insertAction(
      t.database.sql,
      webhookActionRow(accountId, now, {
        id,
        name: `to ${host}`,
        status: 'resolved',
        next_attempt_at: now,
        max_attempts: 5,
        request: { url: `https://${host}/hook`, method: 'POST', headers: {}, body: null },
      }),
    );
    return id;
  }
  const row = (id: string): Promise<ActionRow> =>
    t.database.sql.selectFrom('actions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const circuitOf = async (host: string) =>
    (await findDestination(t.database.sql, accountId, `https://${host}`))!;
  const settings = (host: string, circuit: Record<string, unknown>) =>
    upsertDestination(t.database.sql, { accountId, origin: `https://${host}`, now, circuit });
  const fail = async (host: string) => {
    answers.push(status(503));
    await deliveries.fire(await newAction(host));
  };
  const noticesFor = (host: string) =>
    events.filter((e) => e.event.destination_host === host).map((e) => e.event.type);

  it('a closed circuit costs nothing on success: no row is written for a host that only succeeds', async () => {
    for (let i = 0; i < 3; i += 1) {
      answers.push(status(200));
      await deliveries.fire(await newAction('fine.example'));
    }
    expect(await findDestination(t.database.sql, accountId, 'fine.example')).toBeUndefined();
    // A failure is counted (the row appears with its window), still closed below min_requests.
    await fail('fine.example');
    expect(await circuitOf('fine.example')).toMatchObject({
      circuit_state: 'closed',
      circuit_window_failures: 1,
      circuit_check_at: 7,
    });
    // A 4xx is an answer from a working receiver: not a failure of the circuit.
    answers.push(status(404));
    await deliveries.fire(await newAction('fine.example'));
    expect((await circuitOf('fine.example')).circuit_window_failures).toBe(1);
  });

  it('new settings apply to the running window: lowered thresholds open it at its next failure', async () => {
    const host = 'retuned.example';
    await fail(host);
    // Counted under the defaults: the window looks again at the 7th failure (0.7 of min_requests 10).
    expect(await circuitOf(host)).toMatchObject({ circuit_window_failures: 1, circuit_check_at: 7 });
    await settings(host, { min_requests: 2, failure_rate: 0.5 });
    await fail(host);
    expect(noticesFor(host)).toEqual(['destination.circuit_opened']);
    expect((await circuitOf(host)).circuit_state).toBe('open');
  });

  it('opens at the threshold, holds deliveries without spending attempts, probes one at a time and closes', async () => {
    const host = 'down.example';
    await settings(host, { min_requests: 3, window: '1m', open_for: '2s' });
    await fail(host);
    await fail(host);
    expect(noticesFor(host)).toEqual([]);
    await fail(host);
    expect(noticesFor(host)).toEqual(['destination.circuit_opened']);
    const opened = events.at(-1)!.event;
    expect(opened).toMatchObject({
      account_id: accountId,
      subject: { type: 'destination', id: `https://${host}` },
      details: {
        host,
        origin: `https://${host}`,
        attempts: 3,
        failures: 3,
        failure_rate: 1,
        window: '1m',
        opened_at: now.toISOString(),
      },
    });
    expect(await circuitOf(host)).toMatchObject({ circuit_state: 'open', circuit_opened_at: now });
    // The wake that turns it half-open is durable work at next_probe_at.
    expect(wakes.at(-1)).toEqual({
      wake: { accountId, origin: `https://${host}` },
      at: new Date(now.getTime() + 2_000),
    });

    const sentBefore = sent.length;
    const first = await newAction(host);
    const second = await newAction(host);
    expect(await deliveries.fire(first)).toBeNull();
    expect(await deliveries.fire(second)).toBeNull();
    expect(sent.length).toBe(sentBefore);
    for (const id of [first, second])
      expect(await row(id)).toMatchObject({
        status: 'resolved',
        attempt_count: 0,
        held_by: 'circuit',
        held_since: now,
      });

    // Before open_for has passed, a wake fires nothing; after it, a few held deliveries (one becomes the probe).
    advance(1_000);
    expect(await breaker.wake({ accountId, origin: `https://${host}` })).toEqual([]);
    advance(1_000);
    expect(await breaker.wake({ accountId, origin: `https://${host}` })).toEqual([first, second].sort());
    expect((await circuitOf(host)).circuit_state).toBe('half_open');

    let answer!: (r: OutboundResult) => void;
    answers.push(() => new Promise((resolve) => (answer = resolve)));
    const [probe, other] = [first, second].sort();
    const probing = deliveries.fire(probe!);
    await eventually(async () => sent.length === sentBefore + 1 || null);
    // One probe at a time: the other stays held, no attempt spent, until the probe answers.
    expect(await deliveries.fire(other!)).toBeNull();
    expect((await row(other!)).attempt_count).toBe(0);
    advance(300);
    answer(await status(200)());
    await probing;
    expect(noticesFor(host)).toEqual(['destination.circuit_opened', 'destination.circuit_closed']);
    expect(events.at(-1)!.event.details).toMatchObject({ via: 'probe', outage_ms: 2_300 });
    expect(await circuitOf(host)).toMatchObject({ circuit_state: 'closed', circuit_opened_at: null });
    expect(wakes.at(-1)).toEqual({ wake: { accountId, origin: `https://${host}` }, at: now });

    // Closed: the wake releases the rest, delivered with their held time and cause.
    expect(await breaker.wake({ accountId, origin: `https://${host}` })).toEqual([other]);
    answers.push(status(200));
    advance(50);
    await deliveries.fire(other!);
    expect(await row(other!)).toMatchObject({ status: 'executed', attempt_count: 1 });
    const [attempt] = await attemptPage(t.database.sql, other!, { limit: 1 });
    expect(attempt).toMatchObject({ held_by: 'circuit', held_ms: 2_350 });
  });

  it('reopens for twice as long on a failed probe, disables after disable_after, holds until enabled', async () => {
    const host = 'dead.example';
    await settings(host, { min_requests: 2, open_for: '1s', disable_after: '3s' });
    await fail(host);
    await fail(host);
    const openedAt = now;
    expect((await circuitOf(host)).circuit_state).toBe('open');

    advance(1_000);
    await fail(host); // the probe
    expect(await circuitOf(host)).toMatchObject({
      circuit_state: 'open',
      circuit_reopens: 1,
      circuit_opened_at: openedAt,
      circuit_next_probe_at: new Date(now.getTime() + 2_000),
    });
    // A reopening is the same outage: no second event.
    expect(noticesFor(host)).toEqual(['destination.circuit_opened']);

    advance(2_000);
    await fail(host); // the second probe, 3 s into the outage
    expect((await circuitOf(host)).circuit_state).toBe('disabled');
    expect(noticesFor(host)).toEqual(['destination.circuit_opened', 'destination.disabled']);
    expect(events.at(-1)!.event.details).toMatchObject({ reopens: 1, opened_at: openedAt.toISOString() });

    const held = await newAction(host);
    advance(86_400_000);
    expect(await deliveries.fire(held)).toBeNull();
    expect(await breaker.wake({ accountId, origin: `https://${host}` })).toEqual([]);
    expect(await row(held)).toMatchObject({ status: 'resolved', attempt_count: 0, held_by: 'circuit' });

    await t.database.transaction((db) =>
      breaker.reset(db, { accountId, origin: `https://${host}` }, 'enable'),
    );
    expect(noticesFor(host).at(-1)).toBe('destination.circuit_closed');
    expect(events.at(-1)!.event.details).toMatchObject({ via: 'enable' });
    expect(await breaker.wake({ accountId, origin: `https://${host}` })).toContain(held);
    answers.push(status(200));
    await deliveries.fire(held);
    expect(await row(held)).toMatchObject({ status: 'executed', attempt_count: 1 });
  });

  it('records each event in the transaction of the change, before it commits', async () => {
    expect(events.length).toBeGreaterThanOrEqual(5);
    for (const e of events) {
      expect(e.inTx).toBe(e.event.details.state);
      expect(e.committed).not.toBe(e.inTx);
    }
  });
});
