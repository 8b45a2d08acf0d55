import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// Flow control and the circuit breaker hold across worker processes, their state being in PostgreSQL. One `--role api` process
// and two `--role worker` processes over one database, a loopback receiver.
describe('destinations: flow control and the circuit across two worker processes', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let apiServer: TestServer;
  let rx: Receiver;
  const workers: TestServer[] = [];
  /** The receiver's origin, URL-encoded: the destination as the path names it. */
  let DEST: string;
  const env = { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' };
  const call = (method: string, path: string, body?: unknown) =>
    api(apiServer, apiServer.apiKey, method, path, body);
  const burst = async (count: number, path: string) => {
    const due = new Date(Date.now() + 4_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const res = await call('POST', '/v1/actions', {
        name: `burst ${path} ${i}`,
        scheduled_for: due,
        request: { url: `${rx.url}${path}` },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    for (const id of ids) {
      const done = await eventually(async () => {
        const a = (await call('GET', `/v1/actions/${id}`)).body.data;
        return a.status === 'executed' ? a : null;
      }, 60_000);
      expect(done.attempt_count).toBe(1);
    }
    return rx.to(path);
  };

  beforeAll(async () => {
    db = await createTestDatabase('destinations_workers');
    rx = await startReceiver();
    DEST = encodeURIComponent(new URL(rx.url).origin);
    apiServer = await startServer({ databaseUrl: db.url, role: 'api', env });
    for (let i = 0; i < 2; i += 1)
      workers.push(
        await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: apiServer.dataDir }),
      );
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await apiServer?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('parallelism 2 holds across both workers', async () => {
    rx.on('/slow', { status: 200, delayMs: 400 });
    expect((await call('PUT', `/v1/destinations/${DEST}`, { flow: { parallelism: 2 } })).status).toBe(200);
    const seen = await burst(12, '/slow');
    expect(seen).toHaveLength(12);
    const most = Math.max(
      ...seen.map((r) => seen.filter((o) => o.at <= r.at && (o.repliedAt ?? Infinity) > r.at).length),
    );
    expect(most).toBeLessThanOrEqual(2);
  });

  it('a rate of 3 per second holds across both workers', async () => {
    rx.on('/rated', { status: 200 });
    expect((await call('PUT', `/v1/destinations/${DEST}`, { flow: { rate: 3, period: '1s' } })).status).toBe(
      200,
    );
    const seen = await burst(9, '/rated');
    expect(seen).toHaveLength(9);
    const starts = seen.map((r) => r.at).sort((a, b) => a - b);
    // Nine at three a second need three windows, the last opening two seconds after the first; the bound leaves
    // a wide margin for requests that leave late on a busy machine (unlimited, all nine arrive within milliseconds).
    expect(starts[8]! - starts[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it('the circuit opens once for both workers, holds for both, and lets one probe through at a time', async () => {
    let healthy = false;
    rx.on('/sick', () => ({ status: healthy ? 200 : 503 }));
    const destination = async () => (await call('GET', `/v1/destinations/${DEST}`)).body.data;
    await call('PUT', `/v1/destinations/${DEST}`, {
      flow: null,
      circuit: { min_requests: 4, window: '1m', open_for: '2s' },
    });
    const due = new Date(Date.now() + 3_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const res = await call('POST', '/v1/actions', {
        name: `sick ${i}`,
        scheduled_for: due,
        max_attempts: 10,
        request: { url: `${rx.url}/sick` },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    // Open, nothing in flight, and no request arriving meanwhile: from here on only a probe reaches the receiver
    // (an open circuit's view turns half-open at next_probe_at, before any probe can start).
    const { open, requests } = await eventually(async () => {
      const before = rx.to('/sick').length;
      const d = await destination();
      const quiet = d.circuit.state === 'open' && d.circuit.reopens === 0 && d.in_flight === 0;
      return quiet && rx.to('/sick').length === before ? { open: d, requests: before } : null;
    }, 30_000);
    // Every request spent its attempt, and none went out once the shared circuit was open.
    const attempts = await Promise.all(
      ids.map(async (id) => (await call('GET', `/v1/actions/${id}`)).body.data),
    );
    expect(attempts.reduce((n, a) => n + a.attempt_count, 0)).toBe(requests);

    // Half-open after 2 s: of every due delivery, on either worker, exactly one probe reaches the receiver.
    const reopened = await eventually(async () => {
      const d = await destination();
      return d.circuit.reopens === 1 ? d : null;
    }, 30_000);
    expect(reopened.circuit.opened_at).toBe(open.circuit.opened_at);
    expect(rx.to('/sick')).toHaveLength(requests + 1);

    healthy = true;
    for (const id of ids)
      await eventually(async () => {
        const a = (await call('GET', `/v1/actions/${id}`)).body.data;
        return a.status === 'executed' ? a : null;
      }, 60_000);
    expect((await destination()).circuit.state).toBe('closed');
    // After the failed probe, one more request for the probe that closed it, then one per action.
    expect(rx.to('/sick')).toHaveLength(requests + 1 + 1 + 7);
  });
});
