import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMultiHostUrl, withUrlParam } from '../../server/src/persistence/hosts.js';
import { clusterUnavailableReason, createCluster, type TestCluster } from '../support/pg-cluster.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { pastInstant } from '../support/wait.js';

// libpq's multi-host DATABASE_URL with target_session_attrs=read-write, for every connection the
// service opens. Two real clusters on loopback: the first listed is read-only (as a standby is), the second
// writable. Every sched connection lands on the writable one; when it turns read-only too, requests answer 503 (no
// writable host), and when it is writable again the service comes back by itself.
const skipReason = await clusterUnavailableReason();
if (skipReason) console.warn(`multi-host tests skipped: ${skipReason}`);

describe('parsing a multi-host URL', () => {
  it('splits the hosts, keeps the rest, and sets parameters without touching the host list', () => {
    const url =
      'postgres://u:p%40ss@h1:5433,h2,[::1]:5435/db?target_session_attrs=read-write&sslmode=disable';
    const spec = parseMultiHostUrl(url)!;
    expect(spec.hosts).toEqual([
      { host: 'h1', port: 5433 },
      { host: 'h2', port: 5432 },
      { host: '::1', port: 5435 },
    ]);
    expect(spec).toMatchObject({ needsWritable: true, user: 'u', password: 'p@ss', database: 'db' });
    expect(spec.firstHostUrl).toBe('postgres://u:p%40ss@h1:5433/db?sslmode=disable');
    expect(parseMultiHostUrl('postgres://u@h1:5432/db')).toBeUndefined();
    expect(withUrlParam(url, 'application_name', 'sched-all')).toBe(
      'postgres://u:p%40ss@h1:5433,h2,[::1]:5435/db?target_session_attrs=read-write&sslmode=disable&application_name=sched-all',
    );
    expect(() => parseMultiHostUrl('postgres://u@h1:5432,h2:5432/db?target_session_attrs=standby')).toThrow(
      /not supported/,
    );
  });
});

describe.skipIf(skipReason !== undefined)('a multi-host DATABASE_URL', () => {
  let readOnly: TestCluster;
  let writable: TestCluster;
  let server: TestServer;
  let rx: Receiver;

  const setReadOnly = async (cluster: TestCluster, on: boolean) => {
    await cluster.query(`alter system set default_transaction_read_only = ${on ? 'on' : 'off'}`);
    await cluster.query('select pg_reload_conf()');
    // As a failover would: the demoted server's sessions end.
    await cluster.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name like 'sched%'",
    );
  };

  beforeAll(async () => {
    [readOnly, writable] = await Promise.all([createCluster(), createCluster()]);
    await readOnly.query('create database sched');
    await writable.query('create database sched');
    await setReadOnly(readOnly, true);
    rx = await startReceiver();
    const url = `postgres://postgres@127.0.0.1:${readOnly.port},127.0.0.1:${writable.port}/sched?target_session_attrs=read-write`;
    server = await startServer({
      databaseUrl: url,
      env: { LOG_LEVEL: 'info', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await readOnly?.destroy();
    await writable?.destroy();
  });

  it('every connection goes to the writable host: pools, pg-boss, LISTEN', async () => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/multi` },
    });
    expect(res.status).toBe(201);
    await rx.waitFor('/multi');
    // Every client session on the sched database but the host selection's short probes and the test's own.
    const sessions = async (cluster: TestCluster) =>
      (
        await cluster.query<{ application_name: string }>(
          `select application_name from pg_stat_activity where datname = 'sched' and backend_type = 'client backend'
              and application_name not in ('sched-host-selection', 'test-cluster-admin')`,
        )
      ).map((r) => r.application_name);
    expect(await sessions(readOnly)).toEqual([]);
    const names = await sessions(writable);
    expect(names.length).toBeGreaterThanOrEqual(5);
    expect(names).toEqual(expect.arrayContaining(['sched-all-queue', 'sched-worker-listen']));
    const listening = await writable.query<{ n: string }>(
      "select count(*) as n from pg_stat_activity where query ilike 'listen %'",
    );
    expect(Number(listening[0]!.n)).toBeGreaterThanOrEqual(2);
    const tables = await readOnly.query("select 1 from pg_database where datname = 'sched'");
    expect(tables).toHaveLength(1); // the database exists there, but nothing of sched was written to it
  });

  it('no writable host: 503 meanwhile; writable again: back by itself, work due meanwhile delivered once', async () => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '3s' },
      request: { url: `${rx.url}/after` },
    });
    expect(res.status).toBe(201);
    await setReadOnly(writable, true);
    const during = await eventually(async () => {
      const r = await api(server, server.apiKey, 'POST', '/v1/actions', {
        schedule: { wait: '1h' },
        request: { url: `${rx.url}/never` },
      });
      return r.status === 503 ? r : null;
    });
    expect(during.body).toMatchObject({ code: 'service_unavailable' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    // The first action comes due while no host is writable.
    await pastInstant(Date.parse(res.body.data.scheduled_for));
    await setReadOnly(writable, false);
    await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 15_000, 100);
    expect(
      (
        await api(server, server.apiKey, 'POST', '/v1/actions', {
          schedule: { wait: '1h' },
          request: { url: `${rx.url}/later` },
        })
      ).status,
    ).toBe(201);
    await rx.waitFor('/after', 1, 30_000);
    // A send lost with the host is sent again before the action is recorded final: once it is executed with one
    // recorded attempt, the receiver's count is final too.
    const done = await eventually(async () => {
      const a = (await api(server, server.apiKey, 'GET', `/v1/actions/${res.body.data.id}`)).body.data;
      return a.status === 'executed' ? a : null;
    });
    expect(done.delivery_attempts).toHaveLength(1);
    expect(rx.to('/after')).toHaveLength(1);
    expect(server.output()).not.toMatch(/"level":50/);
  }, 90_000);
});
