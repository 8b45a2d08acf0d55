import { createServer } from 'node:net';
import { createClient, type SchedClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

/** A loopback port nothing listens on: a connection to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// A destination is an origin (scheme, host and port): the circuit breaker, flow control and pause of one port of a
// host leave its other ports alone. A real server process, its database, and loopback receivers on several ports of
// 127.0.0.1: one answering 503, one refusing connections, one healthy. Before origins, the failing port's open circuit
// (`open_for` 1 h here) held the healthy port's deliveries with it.
describe('destinations are origins: one failing port of a host holds nothing to its other ports', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let sick: Receiver;
  let healthy: Receiver;
  let refused: string;
  let sched: SchedClient;
  const call = (method: string, path: string, body?: unknown) =>
    api(server, server.apiKey, method, path, body);
  const path = (origin: string) => `/v1/destinations/${encodeURIComponent(origin)}`;
  const destination = async (origin: string) => (await call('GET', path(origin))).body.data;
  const action = async (id: string) => (await call('GET', `/v1/actions/${id}`)).body.data;
  const create = async (name: string, url: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v1/actions', {
      name,
      schedule: { wait: '1s' },
      request: { url },
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.id as string;
  };
  const settled = (id: string, status: string) =>
    eventually(async () => {
      const a = await action(id);
      return a.status === status ? a : null;
    }, 30_000);

  beforeAll(async () => {
    db = await createTestDatabase('destinations_origin');
    sick = await startReceiver();
    healthy = await startReceiver();
    refused = `http://127.0.0.1:${await closedPort()}`;
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
  });
  afterAll(async () => {
    await server?.stop();
    await sick?.close();
    await healthy?.close();
    await db?.drop();
  });

  it('a port answering 5xx and a port refusing connections each open their own circuit; a healthy port of the same host delivers at once', async () => {
    const sickOrigin = new URL(sick.url).origin;
    const healthyOrigin = new URL(healthy.url).origin;
    sick.on('/sick', { status: 503 });
    healthy.on('/ok', { status: 200 });
    // Alert rules: one on the 5xx port's origin (spelled loosely: it is stored the one way), one on the host.
    const rule = async (name: string, filter: Record<string, string>, to: string) => {
      const res = await call('POST', '/v1/alert-rules', {
        name,
        events: ['destination.circuit_opened'],
        filter,
        channels: [{ type: 'webhook', url: `${healthy.url}${to}` }],
        group_wait: '1m',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data;
    };
    const byOrigin = await rule(
      '5xx port',
      { destination_origin: sickOrigin.toUpperCase() },
      '/alert-origin',
    );
    expect(byOrigin.filter).toEqual({ destination_origin: sickOrigin });
    await rule('any port', { destination_host: '127.0.0.1' }, '/alert-host');
    const bad = await call('POST', '/v1/alert-rules', {
      name: 'bad origin',
      events: ['destination.circuit_opened'],
      filter: { destination_origin: 'ftp://127.0.0.1' },
      channels: [{ type: 'webhook', url: `${healthy.url}/never` }],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['filter.destination_origin']);
    healthy.on('/alert-origin', { status: 200 });
    healthy.on('/alert-host', { status: 200 });

    // Small thresholds, and circuits that stay open for an hour once open.
    for (const origin of [sickOrigin, refused, healthyOrigin]) {
      const put = await call('PUT', path(origin), {
        circuit: { min_requests: 3, window: '5m', open_for: '1h' },
      });
      expect(put.status).toBe(200);
      expect(put.body.data).toMatchObject({ origin, host: '127.0.0.1' });
    }
    for (let i = 0; i < 3; i += 1) {
      await create(`5xx ${i}`, `${sick.url}/sick`, { max_attempts: 10 });
      await create(`refused ${i}`, `${refused}/hook`, { max_attempts: 10 });
    }
    for (const origin of [sickOrigin, refused])
      await eventually(
        async () => ((await destination(origin)).circuit.state === 'open' ? true : null),
        30_000,
      );

    // The same host on its healthy port: closed, and a delivery due now goes out on time, held by nothing.
    expect((await destination(healthyOrigin)).circuit.state).toBe('closed');
    const created = Date.now();
    const ok = await settled(await create('to the healthy port', `${healthy.url}/ok`), 'executed');
    const [attempt] = ok.delivery_attempts;
    expect(attempt).toMatchObject({ held_by: null, held_ms: null, status_code: 200 });
    expect(attempt.lateness_ms).toBeLessThan(5_000);
    expect(healthy.to('/ok')[0]!.at - created).toBeLessThan(10_000);
    // http and https of one host are two destinations too: the https origin of 127.0.0.1 knows nothing of these.
    expect((await destination('127.0.0.1')).circuit.state).toBe('closed');
    expect((await destination('https://127.0.0.1')).origin).toBe('https://127.0.0.1');
    // Both failing ports still open: their circuits are their own.
    expect((await destination(sickOrigin)).circuit.state).toBe('open');
    expect((await destination(refused)).circuit.state).toBe('open');

    // The list shows each origin beside its host.
    const list = (await sched.destinations.list()).filter((d) => d.host === '127.0.0.1');
    expect(list.map((d) => [d.origin, d.circuit_state]).sort()).toEqual(
      [
        [healthyOrigin, 'closed'],
        [refused, 'open'],
        [sickOrigin, 'open'],
      ].sort(),
    );

    // The origin's rule heard of its own origin only; the host's rule of both ports.
    type Sampled = { type: string; destination_host: string; details: { origin: string } };
    const sampled = (to: string) => healthy.to(to).flatMap((req) => req.json.sample as Sampled[]);
    const hostOrigins = await eventually(async () => {
      const origins = new Set(sampled('/alert-host').map((e) => e.details.origin));
      return origins.size === 2 ? [...origins].sort() : null;
    }, 30_000);
    expect(hostOrigins).toEqual([refused, sickOrigin].sort());
    await eventually(async () => (sampled('/alert-origin').length > 0 ? true : null), 30_000);
    for (const e of sampled('/alert-origin'))
      expect(e).toMatchObject({
        type: 'destination.circuit_opened',
        destination_host: '127.0.0.1',
        details: { origin: sickOrigin },
      });

    // The actions list filters by origin (any spelling) as by host.
    const count = async (query: string) => (await call('GET', `/v1/actions?${query}`)).body.meta.total;
    expect(await count(`destination_origin=${encodeURIComponent(sickOrigin.toUpperCase())}`)).toBe(3);
    expect(await count(`destination_origin=${encodeURIComponent(refused)}`)).toBe(3);
    expect(await count('destination_host=127.0.0.1')).toBe(7);

    // Enabling one origin closes that one only (the CLI takes the origin as it is).
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const enabled = await runCli(['destinations', 'enable', refused], env);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain(refused);
    expect(enabled.stdout).toMatch(/circuit\s+closed/);
    expect((await destination(sickOrigin)).circuit.state).toBe('open');
  });

  it('names an origin however it is spelled; a bare host is its https origin; anything else is a 422', async () => {
    const origin = new URL(healthy.url).origin;
    const port = new URL(healthy.url).port;
    for (const spelled of [`HTTP://127.0.0.1:${port}/`, `http://127.0.0.1:${port}`])
      expect((await destination(spelled)).origin).toBe(origin);
    expect((await sched.destinations.get(origin)).origin).toBe(origin);
    expect(await destination('API.Example.com.')).toMatchObject({
      origin: 'https://api.example.com',
      host: 'api.example.com',
    });
    expect((await destination('https://api.example.com:443')).origin).toBe('https://api.example.com');
    expect((await destination('http://api.example.com:80')).origin).toBe('http://api.example.com');
    expect((await destination('https://bücher.example')).origin).toBe('https://xn--bcher-kva.example');
    for (const bad of [`http://127.0.0.1:${port}/hook`, 'ftp://api.example.com', 'http://', 'x.example/a']) {
      const res = await call('PUT', path(bad), { flow: { parallelism: 1 } });
      expect(res.status, bad).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(Object.keys(res.body.errors)).toEqual(['host']);
    }
    // Nothing was written for the refused names.
    expect((await sched.destinations.list()).some((d) => d.origin.startsWith('ftp:'))).toBe(false);
  });

  it("flow control's cap applies per origin: parallelism 1 on one port, the other port of the host runs freely", async () => {
    const slowA = await startReceiver();
    const slowB = await startReceiver();
    try {
      slowA.on('/slow', { status: 200, delayMs: 400 });
      slowB.on('/slow', { status: 200, delayMs: 400 });
      const capped = new URL(slowA.url).origin;
      const put = await sched.destinations.update(capped, { flow: { parallelism: 1 } });
      expect(put.flow).toEqual({ parallelism: 1 });
      const due = new Date(Date.now() + 3_000).toISOString();
      const ids: { a: string[]; b: string[] } = { a: [], b: [] };
      for (let i = 0; i < 5; i += 1) {
        ids.a.push(
          await create(`capped ${i}`, `${slowA.url}/slow`, { schedule: undefined, scheduled_for: due }),
        );
        ids.b.push(
          await create(`free ${i}`, `${slowB.url}/slow`, { schedule: undefined, scheduled_for: due }),
        );
      }
      const doneA = await Promise.all(ids.a.map((id) => settled(id, 'executed')));
      const doneB = await Promise.all(ids.b.map((id) => settled(id, 'executed')));
      const most = (rx: Receiver) => {
        const seen = rx.to('/slow');
        return Math.max(
          ...seen.map((r) => seen.filter((o) => o.at <= r.at && (o.repliedAt ?? Infinity) > r.at).length),
        );
      };
      expect(most(slowA)).toBe(1);
      expect(doneA.some((a) => a.delivery_attempts[0].held_by === 'flow_control')).toBe(true);
      // The other port is not counted against the cap: its requests overlap, and none waited for flow control.
      expect(most(slowB)).toBeGreaterThan(1);
      for (const b of doneB) expect(b.delivery_attempts[0].held_by).not.toBe('flow_control');
    } finally {
      await slowA.close();
      await slowB.close();
    }
  });
});
