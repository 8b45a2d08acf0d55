import { createClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { sqlValue } from '../support/seed.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// End to end: destinations as a resource, pausing one host (held deliveries spend no
// attempt and go out on resume) and recovering a host's failures through a bulk retry; a real server process, its
// database and a loopback receiver (host 127.0.0.1).
describe('destinations: resource, pause and resume, recover', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  const HOST = '127.0.0.1';
  /** The receiver's origin (`http://127.0.0.1:<port>`): the destination; URL-encoded in a path. */
  let ORIGIN: string;
  let DEST: string;
  const call = (method: string, path: string, body?: unknown) =>
    api(server, server.apiKey, method, path, body);
  const action = async (id: string) => (await call('GET', `/v1/actions/${id}`)).body.data;
  const settled = (id: string, status: string) =>
    eventually(async () => {
      const a = await action(id);
      return a.status === status ? a : null;
    }, 40_000);
  const create = async (name: string, path: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v1/actions', {
      name,
      schedule: { wait: '1s' },
      request: { url: `${rx.url}${path}` },
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    db = await createTestDatabase('destinations');
    rx = await startReceiver();
    ORIGIN = new URL(rx.url).origin;
    DEST = encodeURIComponent(ORIGIN);
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('lists every host sent to with counts; a host shows its settings, load and last 24 hours', async () => {
    rx.on('/ok', { status: 200, delayMs: 20 });
    rx.on('/down', { status: 503 });
    const ok = await create('dest ok', '/ok');
    const down = await create('dest down', '/down', { max_attempts: 1 });
    await settled(ok, 'executed');
    await settled(down, 'failed');

    const list = await call('GET', '/v1/destinations');
    expect(list.status).toBe(200);
    const entry = list.body.data.find((d: { origin: string }) => d.origin === ORIGIN);
    expect(entry).toMatchObject({ host: HOST, paused: false, configured: false, in_flight: 0 });
    expect(entry.actions).toBeGreaterThanOrEqual(2);
    expect(entry.failed).toBeGreaterThanOrEqual(1);

    const one = await call('GET', `/v1/destinations/${DEST}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({
      host: HOST,
      flow: null,
      circuit: { state: 'closed', enabled: true, min_requests: 10, window: '5m', failure_rate: 0.7 },
      paused: false,
      in_flight: 0,
      waiting: 0,
    });
    const day = one.body.data.stats.last_24h;
    expect(day.attempts).toBeGreaterThanOrEqual(2);
    expect(day.failures).toBeGreaterThanOrEqual(1);
    expect(day.p50_ms).toEqual(expect.any(Number));
    expect(day.p99_ms).toBeGreaterThanOrEqual(day.p50_ms);

    // A host never sent to answers its defaults; host names are case-insensitive.
    const unknown = await call('GET', '/v1/destinations/Never.Example.COM');
    expect(unknown.body.data).toMatchObject({ host: 'never.example.com', flow: null, paused: false });
    expect(unknown.body.data.stats.last_24h).toEqual({
      attempts: 0,
      failures: 0,
      p50_ms: null,
      p99_ms: null,
    });

    const put = await call('PUT', `/v1/destinations/${DEST}`, {
      flow: { rate: 50, period: '1s', parallelism: 8 },
      circuit: { min_requests: 20 },
    });
    expect(put.status).toBe(200);
    expect(put.body.data.flow).toEqual({ rate: 50, period: '1s', parallelism: 8 });
    expect(put.body.data.circuit).toMatchObject({ min_requests: 20, failure_rate: 0.7 });
    // A part left out keeps its value; null clears it.
    const cleared = await call('PUT', `/v1/destinations/${DEST}`, { flow: null });
    expect(cleared.body.data.flow).toBeNull();
    expect(cleared.body.data.circuit.min_requests).toBe(20);
    const restored = await call('PUT', `/v1/destinations/${DEST}`, { circuit: null });
    expect(restored.body.data.circuit.min_requests).toBe(10);

    const bad = await call('PUT', `/v1/destinations/${DEST}`, { flow: { period: '2s', parallelism: 0 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['flow.period', 'flow.parallelism']));
    expect((await call('GET', `/v1/destinations/${DEST}`)).body.data.flow).toBeNull();
  });

  it('pause holds every delivery to the host without spending an attempt; resume delivers them', async () => {
    rx.on('/held', { status: 200 });
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const paused = await sched.destinations.pause(ORIGIN, { note: 'receiver maintenance' });
    expect(paused).toMatchObject({ paused: true, pause: { note: 'receiver maintenance', until: null } });
    expect((await sched.destinations.list()).find((d) => d.origin === ORIGIN)?.paused).toBe(true);

    const ids = [await create('held 1', '/held'), await create('held 2', '/held')];
    // Due (1 s), fired and held by the pause: the worker recorded why, and sent nothing, spending no attempt.
    await eventually(async () => {
      const d = await sched.destinations.get(ORIGIN);
      return d.waiting >= 2 ? d : null;
    }, 20_000);
    await eventually(
      async () =>
        (await sqlValue<number>(
          db.url,
          "select count(*)::int from actions where id = any($1) and held_by = 'paused'",
          [ids],
        )) === 2,
    );
    // Each waited from its hold (or its due time, when held a moment early) until after the resume.
    const heldFrom = await sqlValue<Date>(
      db.url,
      'select max(greatest(held_since, scheduled_for)) from actions where id = any($1)',
      [ids],
    );
    expect(rx.to('/held')).toHaveLength(0);
    for (const id of ids) {
      const a = await action(id);
      expect(['scheduled', 'resolved']).toContain(a.status);
      expect(a.attempt_count).toBe(0);
    }

    const resumedAt = Date.now();
    const resumed = await sched.destinations.resume(ORIGIN);
    expect(resumed).toMatchObject({ paused: false, pause: null });
    for (const id of ids) {
      const done = await settled(id, 'executed');
      expect(done.attempt_count).toBe(1);
      // The wait is on the attempt, apart from (and within) its lateness, which counts from the due time.
      const [attempt] = done.delivery_attempts;
      expect(attempt.held_by).toBe('paused');
      expect(attempt.held_ms).toBeGreaterThanOrEqual(resumedAt - heldFrom.getTime());
      expect(attempt.lateness_ms).toBeGreaterThanOrEqual(attempt.held_ms);
    }
    expect(rx.to('/held')).toHaveLength(2);

    // A pause with `until` in the past is refused and changes nothing.
    const bad = await call('POST', `/v1/destinations/${DEST}/pause`, { until: '2000-01-01T00:00:00Z' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('until');
    expect((await sched.destinations.get(ORIGIN)).paused).toBe(false);
  });

  it('a pause with until resumes by itself then: held deliveries go out without a resume', async () => {
    rx.on('/until', { status: 200 });
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const until = new Date(Date.now() + 4_000);
    const paused = await sched.destinations.pause(ORIGIN, {
      until: until.toISOString(),
      note: 'deploy window',
    });
    expect(paused).toMatchObject({
      paused: true,
      pause: { until: until.toISOString(), note: 'deploy window' },
    });
    const id = await create('held until', '/until');
    const held = await eventually(async () => {
      const a = await action(id);
      return Date.parse(a.next_attempt_at) < Date.now() - 500 ? a : null;
    }, 20_000);
    expect(held.attempt_count).toBe(0);
    expect(rx.to('/until')).toHaveLength(0);

    const done = await settled(id, 'executed');
    const [attempt] = done.delivery_attempts;
    expect(Date.parse(attempt.started_at)).toBeGreaterThanOrEqual(until.getTime());
    expect(attempt).toMatchObject({ held_by: 'paused' });
    expect((await sched.destinations.get(ORIGIN)).paused).toBe(false);
  });

  it("recover retries exactly the host's actions that failed in the window, as a bulk retry", async () => {
    let up = false;
    rx.on('/flaky', () => ({ status: up ? 200 : 503 }));
    const before = await create('failed before the outage', '/flaky', { max_attempts: 1 });
    // Failures are dated by their action's last change: the window starts just after this one.
    const failedAt = Date.parse((await settled(before, 'failed')).updated_at);
    const since = new Date(failedAt + 1).toISOString();
    const inOutage = [
      await create('outage 1', '/flaky', { max_attempts: 1 }),
      await create('outage 2', '/flaky', { max_attempts: 1 }),
    ];
    for (const id of inOutage) await settled(id, 'failed');

    const dry = await call('POST', `/v1/destinations/${HOST}/recover`, { since });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ dry_run: true, operation: 'retry', matched: 2, eligible: 2 });
    expect([...dry.body.data.sample_ids].sort()).toEqual([...inOutage].sort());

    up = true;
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const op = await sched.destinations.recover(HOST, { since, dry_run: false });
    expect(op).toMatchObject({ operation: 'retry', matched: 2 });
    const done = await sched.bulkOperations.waitForCompletion((op as { id: string }).id, { intervalMs: 200 });
    expect(done).toMatchObject({ status: 'completed', affected: 2 });
    for (const id of inOutage) await settled(id, 'executed');
    expect((await action(before)).status).toBe('failed');

    const bad = await call('POST', `/v1/destinations/${HOST}/recover`, { since: 'yesterday' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('since');
  });

  it('flow control: parallelism 2 on a host answering in 500 ms, 20 due at once, never more than 2 in flight', async () => {
    rx.on('/slow', { status: 200, delayMs: 500 });
    const put = await call('PUT', `/v1/destinations/${DEST}`, { flow: { parallelism: 2 } });
    expect(put.body.data.flow).toEqual({ parallelism: 2 });
    const due = new Date(Date.now() + 4_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await call('POST', '/v1/actions', {
        name: `flow ${i}`,
        scheduled_for: due,
        request: { url: `${rx.url}/slow` },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    const done = [];
    for (const id of ids) done.push(await settled(id, 'executed'));
    for (const a of done) expect(a.attempt_count).toBe(1);
    // Most of the 20 waited for a slot (two at a time, 500 ms each; one claimed just as a slot freed did not):
    // their attempts say so.
    const held = done.filter((a) => a.delivery_attempts[0].held_by === 'flow_control');
    expect(held.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...held.map((a) => a.delivery_attempts[0].held_ms))).toBeGreaterThanOrEqual(3_000);
    const seen = rx.to('/slow');
    expect(seen).toHaveLength(20);
    // The most requests open at once at the receiver: each arrival against the others still unanswered.
    const most = Math.max(
      ...seen.map((r) => seen.filter((o) => o.at <= r.at && (o.repliedAt ?? Infinity) > r.at).length),
    );
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBe(2);
    await call('PUT', `/v1/destinations/${DEST}`, { flow: null });
  });

  it('the CLI: sched destinations set (flow and circuit), get, pause, resume, list and recover', async () => {
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const host = 'cli-dest.example';
    const set = await runCli(
      ['destinations', 'set', host, '--parallelism', '3', '--rate', '10', '--period', '1m'],
      env,
    );
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('parallelism 3, 10 per 1m');
    expect((await call('GET', `/v1/destinations/${host}`)).body.data.flow).toEqual({
      parallelism: 3,
      rate: 10,
      period: '1m',
    });
    // Circuit options change the circuit only; the flow set above stays.
    const circuit = await runCli(
      ['destinations', 'set', host, '--min-requests', '20', '--open-for', '30s', '--json'],
      env,
    );
    expect(JSON.parse(circuit.stdout).data).toMatchObject({
      flow: { parallelism: 3, rate: 10, period: '1m' },
      circuit: { state: 'closed', min_requests: 20, open_for: '30s', window: '5m' },
    });
    const defaults = await runCli(['destinations', 'set', host, '--circuit', 'defaults', '--json'], env);
    expect(JSON.parse(defaults.stdout).data.circuit).toMatchObject({ min_requests: 10, open_for: '1m' });
    const paused = await runCli(['destinations', 'pause', host, '--note', 'cli pause', '--json'], env);
    expect(JSON.parse(paused.stdout).data).toMatchObject({ paused: true, pause: { note: 'cli pause' } });
    const listed = await runCli(['destinations', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).data).toContainEqual(
      expect.objectContaining({ host, paused: true, configured: true }),
    );
    expect((await runCli(['destinations', 'resume', host], env)).stdout).toMatch(/paused\s+no/);
    const unset = await runCli(['destinations', 'set', host, '--no-flow', '--json'], env);
    expect(JSON.parse(unset.stdout).data.flow).toBeNull();
    const dry = await runCli(['destinations', 'recover', HOST, '--since', '2000-01-01T00:00:00Z'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/would retry \d+ of \d+ matched actions/);
  });

  it('pages the list in origin order: HTTP and the SDK (the console: console-panels)', async () => {
    for (const name of ['a', 'b', 'c']) {
      const origin = encodeURIComponent(`https://page-${name}.example`);
      expect((await call('PUT', `/v1/destinations/${origin}`, { flow: { parallelism: 2 } })).status).toBe(
        200,
      );
    }
    const whole = await call('GET', '/v1/destinations');
    const origins: string[] = whole.body.data.map((d: { origin: string }) => d.origin);
    expect(origins.length).toBeGreaterThanOrEqual(4);
    expect(origins).toEqual([...origins].sort());
    expect(whole.body.meta).toEqual({ current_page: 1, last_page: 1, total: origins.length, per_page: 100 });
    const pages: string[] = [];
    const last = Math.ceil(origins.length / 2);
    for (let page = 1; page <= last; page++) {
      const res = await call('GET', `/v1/destinations?per_page=2&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({
        current_page: page,
        last_page: last,
        total: origins.length,
        per_page: 2,
      });
      pages.push(...res.body.data.map((d: { origin: string }) => d.origin));
    }
    expect(pages).toEqual(origins);
    const tooMany = await call('GET', '/v1/destinations?per_page=101');
    expect(tooMany.status).toBe(422);
    expect(JSON.stringify(tooMany.body)).toContain('per_page');

    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const second = await sched.destinations.listPage({ page: 2, per_page: 2 });
    expect(second.data.map((d) => d.origin)).toEqual(origins.slice(2, 4));
    expect((await sched.destinations.list()).map((d) => d.origin)).toEqual(origins);
    const walked: string[] = [];
    for await (const d of sched.destinations.iterate()) walked.push(d.origin);
    expect(walked).toEqual(origins);
  });
});
