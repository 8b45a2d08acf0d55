import { createClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { startSmtpServer } from '../support/peers.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// End to end: the circuit breaker of a destination host, on by default. A real server process,
// its database, a loopback receiver (host 127.0.0.1) that fails until the test lets it recover, and a real SMTP
// sink for an approval's messages. Retry waits are scaled (SCHED_TIME_SCALE); the circuit's own settings are
// the host's, in real time (small ones: `open_for` 2 s).
const METRICS_TOKEN = 'circuit-metrics-token';

describe('destinations: the circuit breaker', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const HOST = '127.0.0.1';
  /** The receiver's origin (`http://127.0.0.1:<port>`): the destination, as the path names it URL-encoded. */
  let ORIGIN: string;
  let DEST: string;
  const call = (method: string, path: string, body?: unknown) =>
    api(server, server.apiKey, method, path, body);
  const destination = async () => (await call('GET', `/v1/destinations/${DEST}`)).body.data;
  const action = async (id: string) => (await call('GET', `/v1/actions/${id}`)).body.data;
  const settled = (id: string, status: string) =>
    eventually(async () => {
      const a = await action(id);
      return a.status === status ? a : null;
    }, 40_000);
  const circuitIs = (state: string, extra: (c: any) => boolean = () => true) =>
    eventually(async () => {
      const d = await destination();
      return d.circuit.state === state && extra(d.circuit) ? d : null;
    }, 40_000);
  const create = async (name: string, path: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v1/actions', {
      name,
      schedule: { wait: '1s' },
      request: { url: `${rx.url}${path}` },
      max_attempts: 10,
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const attemptCounts = async (ids: string[]): Promise<Record<string, number>> =>
    Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await action(id)).attempt_count])));
  /** The value of a gauge's sample whose labels include `labels` (null when there is none). */
  const gauge = (text: string, name: string, labels: Record<string, string>) => {
    for (const line of text.split('\n')) {
      const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
      if (!m || m[1] !== name) continue;
      const has = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
      if (Object.entries(labels).every(([k, v]) => has[k] === v)) return Number(m[3]);
    }
    return null;
  };
  const metrics = async () =>
    (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();

  beforeAll(async () => {
    db = await createTestDatabase('destinations_circuit');
    rx = await startReceiver();
    ORIGIN = new URL(rx.url).origin;
    DEST = encodeURIComponent(ORIGIN);
    smtp = await startSmtpServer();
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_TIME_SCALE: '300',
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_METRICS_HOST_LABELS: 'true',
        // Host labels name every account's destinations: the server refuses them on a public /metrics.
        SCHED_METRICS_TOKEN: METRICS_TOKEN,
        SCHED_SMTP_URL: smtp.url,
        SCHED_EMAIL_FROM: 'sched <approvals@example.com>',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await rx?.close();
    await db?.drop();
  });

  it('opens after the threshold, holds due deliveries without spending attempts, probes, closes and delivers', async () => {
    let healthy = false;
    rx.on('/flaky', () => ({ status: healthy ? 200 : 503 }));
    const put = await call('PUT', `/v1/destinations/${DEST}`, {
      circuit: { min_requests: 5, window: '1m', failure_rate: 0.7, open_for: '2s' },
    });
    expect(put.body.data.circuit).toMatchObject({ state: 'closed', opened_at: null, next_probe_at: null });

    const first: string[] = [];
    for (let i = 0; i < 5; i += 1) first.push(await create(`failing ${i}`, '/flaky'));
    // Open, nothing in flight, no request arriving meanwhile: from here on only a probe reaches the receiver (the
    // view of an open circuit turns half-open at next_probe_at, before any probe can start).
    const { open, requestsWhileOpen, heldCounts } = await eventually(async () => {
      const before = rx.to('/flaky').length;
      const counts = await attemptCounts(first);
      const d = await destination();
      const quiet = d.circuit.state === 'open' && d.circuit.reopens === 0 && d.in_flight === 0;
      return quiet && rx.to('/flaky').length === before
        ? { open: d, requestsWhileOpen: before, heldCounts: counts }
        : null;
    }, 20_000);
    expect(open.circuit.opened_at).toEqual(expect.any(String));
    expect(Date.parse(open.circuit.next_probe_at) - Date.parse(open.circuit.opened_at)).toBe(2_000);

    // Due while open: held, durable, no attempt spent.
    const later: string[] = [];
    for (let i = 0; i < 4; i += 1) later.push(await create(`while open ${i}`, '/flaky'));
    for (const id of later) heldCounts[id] = 0;
    const all = [...first, ...later];

    // open_for later the circuit turns half-open: ONE probe goes out; it fails, so the circuit reopens for
    // twice as long (no new event: the same outage), and nothing else reached the receiver.
    const reopened = await circuitIs('open', (c) => c.reopens === 1);
    expect(
      Date.parse(reopened.circuit.next_probe_at) - Date.parse(reopened.circuit.opened_at),
    ).toBeGreaterThan(4_000);
    expect(reopened.circuit.opened_at).toBe(open.circuit.opened_at);
    expect(rx.to('/flaky').length).toBe(requestsWhileOpen + 1);
    const afterProbe = await attemptCounts(all);
    const spent = all.filter((id) => afterProbe[id] !== heldCounts[id]);
    expect(spent).toHaveLength(1);
    expect(afterProbe[spent[0]!]).toBe(heldCounts[spent[0]!]! + 1);
    for (const id of later.filter((l) => l !== spent[0])) {
      const a = await action(id);
      expect(['scheduled', 'resolved']).toContain(a.status);
      expect(a.attempt_count).toBe(0);
    }

    // The receiver recovers: the next probe closes the circuit and the held deliveries go out.
    healthy = true;
    for (const id of all) {
      const done = await settled(id, 'executed');
      if (later.includes(id) && id !== spent[0]) {
        expect(done.attempt_count).toBe(1);
        expect(done.delivery_attempts[0]).toMatchObject({ outcome: 'success', held_by: 'circuit' });
        expect(done.delivery_attempts[0].held_ms).toBeGreaterThanOrEqual(2_000);
      }
    }
    expect((await destination()).circuit).toMatchObject({
      state: 'closed',
      opened_at: null,
      next_probe_at: null,
      reopens: 0,
    });
  });

  it('an outage past disable_after disables the host: everything waits until enable', async () => {
    let healthy = false;
    rx.on('/dead', () => ({ status: healthy ? 200 : 503 }));
    await call('PUT', `/v1/destinations/${DEST}`, {
      circuit: { min_requests: 2, window: '1m', open_for: '1s', disable_after: '2s' },
    });
    const ids = [await create('dead 1', '/dead'), await create('dead 2', '/dead')];
    // Open, a failed probe a second later (reopened for 2 s), a failed probe 3 s into the outage: disabled.
    const disabled = await circuitIs('disabled');
    const listed = (await call('GET', '/v1/destinations')).body.data;
    expect(listed.find((d: { origin: string }) => d.origin === ORIGIN)).toMatchObject({
      circuit_state: 'disabled',
    });
    expect(disabled.circuit).toMatchObject({ next_probe_at: null, reopens: 1 });
    const requests = rx.to('/dead').length;

    const third = await create('dead 3', '/dead');
    ids.push(third);
    // Well past its due time: held, no attempt spent, nothing sent.
    const due = await eventually(async () => {
      const a = await action(third);
      return Date.parse(a.next_attempt_at) < Date.now() - 1_000 ? a : null;
    }, 20_000);
    expect(due).toMatchObject({ status: 'resolved', attempt_count: 0 });
    const counts = await attemptCounts(ids);
    expect(rx.to('/dead')).toHaveLength(requests);

    healthy = true;
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const enabled = await runCli(['destinations', 'enable', ORIGIN], env);
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toMatch(/circuit\s+closed/);
    for (const id of ids) {
      const done = await settled(id, 'executed');
      expect(done.attempt_count).toBe(counts[id]! + 1);
    }
    // Enabling a closed circuit changes nothing (the SDK's enable).
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    expect((await sched.destinations.enable(ORIGIN)).circuit.state).toBe('closed');
  });

  it("an approval's timeout does not wait for the circuit; its post-approval request does; /metrics shows both", async () => {
    let healthy = false;
    rx.on('/gone', () => ({ status: healthy ? 200 : 503 }));
    rx.on('/after-approval', { status: 200 });
    await call('PUT', `/v1/destinations/${DEST}`, {
      circuit: { min_requests: 2, window: '1m', open_for: '1h' },
    });
    await create('gone 1', '/gone');
    await create('gone 2', '/gone');
    await circuitIs('open');

    // The approval's own request goes to the same host, which is open: its message and its timeout go ahead.
    const res = await call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'approve while the receiver is down',
      schedule: { wait: '1s' },
      gate: { message: 'Ship?', recipients: ['ops@example.com'], timeout: '10m', on_timeout: 'approve' },
      request: { url: `${rx.url}/after-approval` },
    });
    expect(res.status).toBe(201);
    await smtp.waitFor('ops@example.com', 1, 20_000);
    const approved = await settled(res.body.data.id, 'executed');
    expect(approved.reminder_events.map((e: { event_type: string }) => e.event_type)).toContain('expired');
    const after = approved.gate.post_approval_action_id as string;
    expect(after).toEqual(expect.any(String));

    // The post-approval request is a webhook to the open host: held, due, no attempt spent.
    const held = await eventually(async () => {
      const a = await action(after);
      return Date.parse(a.next_attempt_at) < Date.now() - 1_000 ? a : null;
    }, 20_000);
    expect(['scheduled', 'resolved']).toContain(held.status);
    expect(held.attempt_count).toBe(0);
    expect(rx.to('/after-approval')).toHaveLength(0);

    const during = await metrics();
    expect(gauge(during, 'sched_destination_circuits', { state: 'open' })).toBe(1);
    expect(gauge(during, 'sched_destination_circuits', { state: 'disabled' })).toBe(0);
    expect(gauge(during, 'sched_deliveries_held', { reason: 'circuit' })).toBeGreaterThanOrEqual(3);
    expect(gauge(during, 'sched_destination_held_deliveries', { host: HOST })).toBeGreaterThanOrEqual(3);
    expect(gauge(during, 'sched_destination_circuit', { host: HOST, state: 'open' })).toBe(1);

    // Turning the breaker off closes the circuit and releases what it held.
    healthy = true;
    const off = await call('PUT', `/v1/destinations/${DEST}`, { circuit: { enabled: false } });
    expect(off.body.data.circuit).toMatchObject({ state: 'closed', enabled: false });
    expect((await settled(after, 'executed')).delivery_attempts[0]).toMatchObject({ held_by: 'circuit' });
    expect(rx.to('/after-approval')).toHaveLength(1);
    await call('PUT', `/v1/destinations/${DEST}`, { circuit: null });
    const cleared = await metrics();
    expect(gauge(cleared, 'sched_destination_circuits', { state: 'open' })).toBe(0);
    expect(gauge(cleared, 'sched_destination_circuit', { host: HOST, state: 'open' })).toBeNull();
  });
});
