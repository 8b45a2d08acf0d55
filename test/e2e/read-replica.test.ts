import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterUnavailableReason,
  createCluster,
  createStandby,
  type TestCluster,
} from '../support/pg-cluster.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { pastInstant } from '../support/wait.js';

// Reads on a streaming replica (SCHED_READ_DATABASE_URL): a real primary and a hot standby made on loopback by
// pg_basebackup (Debian's PostgreSQL, one major version on both sides), one pair for the file. The replica is
// proven to serve a read by pausing its replay: only it can still show an action the primary has since delivered.
const skipReason = await clusterUnavailableReason();
if (skipReason) console.warn(`read replica tests skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('reads on a streaming replica', () => {
  let primary: TestCluster;
  let standby: TestCluster;
  let server: TestServer;
  let rx: Receiver;

  /** A statement on the standby's `sched` database (replay control, what it holds). */
  const onStandby = async (text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: standby.url('sched') });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  /** A sample of /metrics: `name` with every label of `labels`, whatever their order (0 when absent). */
  const metric = async (
    name: string,
    labels: Record<string, string> = {},
    of: TestServer = server,
  ): Promise<number> => {
    const text = await (await fetch(`${of.url}/metrics`)).text();
    const found = text
      .split('\n')
      .find(
        (l) =>
          (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) &&
          Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
      );
    return found ? Number(found.split(' ').at(-1)) : 0;
  };
  const replicaReads = () => metric('sched_reads_total', { on: 'replica' });
  const readyReplica = async (of: TestServer = server) =>
    ((await (await fetch(`${of.url}/readyz`)).json()) as { read_replica?: Record<string, unknown> })
      .read_replica;
  const get = (path: string, of: TestServer = server) => api(of, server.apiKey, 'GET', path);
  const statusIn = async (path: string, id: string, of: TestServer = server) => {
    const res = await get(path, of);
    expect(res.status).toBe(200);
    return (res.body.data as { id: string; status: string }[]).find((a) => a.id === id)?.status;
  };
  const create = async (wait: string, path: string) => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait },
      request: { url: `${rx.url}${path}` },
    });
    expect(res.status).toBe(201);
    return { id: res.body.data.id as string, at: Date.now() };
  };

  beforeAll(async () => {
    primary = await createCluster();
    await primary.query('create database sched');
    standby = await createStandby(primary);
    rx = await startReceiver();
    server = await startServer({
      databaseUrl: primary.url('sched'),
      env: {
        SCHED_READ_DATABASE_URL: standby.url('sched'),
        // Large: a paused replay must not count as lagging here (the bound's own rule is unit-tested).
        SCHED_READ_REPLICA_MAX_LAG_SECONDS: '300',
        SCHED_READ_YOUR_WRITES_SECONDS: '1',
        SCHED_RATE_LIMIT_FACTOR: '100',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await standby?.destroy();
    await primary?.destroy();
  });

  it('serves lists from the replica once it holds the rows; /readyz and the metrics show it streaming', async () => {
    const a = await create('1h', '/a');
    await eventually(async () => (await readyReplica())?.state === 'streaming');
    const before = await replicaReads();
    // Right after the write the list is the primary's; once the window passed, the replica's (it has the row).
    await eventually(async () => {
      const status = await statusIn('/v1/actions?per_page=100', a.id);
      return status !== undefined && (await replicaReads()) > before;
    });
    expect(await metric('sched_read_replica_up')).toBe(1);
  });

  it('a paused replay: lists miss the delivery until consistency=strong or the account writes; the lag moves', async () => {
    const b = await create('8s', '/b');
    await eventually(
      async () => (await onStandby('select 1 from actions where id = $1', [b.id])).length === 1,
    );
    // A replica whose last replayed commit is not past the account's write (plus the window and its slack) keeps
    // the account's reads on the primary. So a commit of someone else's, later, and replayed before the pause.
    await pastInstant(b.at, 3_000);
    await primary.query('create table if not exists ticks (at timestamptz)');
    const [tick] = await primary.query<{ at: Date }>('insert into ticks values (now()) returning at');
    await eventually(
      async () =>
        (await onStandby('select pg_last_xact_replay_timestamp() >= $1 as caught', [tick!.at]))[0]?.caught ===
        true,
    );
    await onStandby('select pg_wal_replay_pause()');
    try {
      await rx.waitFor('/b');
      await eventually(
        async () => (await get(`/v1/actions/${b.id}?consistency=strong`)).body.data.status === 'executed',
      );
      // Only the paused replica still holds the action as not yet delivered.
      const waiting = ['scheduled', 'resolved'];
      expect(waiting).toContain(await statusIn('/v1/actions?per_page=100', b.id));
      expect(waiting).toContain((await get(`/v1/actions/${b.id}`)).body.data.status);
      expect(await statusIn('/v1/actions?per_page=100&consistency=strong', b.id)).toBe('executed');
      expect((await get('/v1/stats?consistency=strong')).status).toBe(200);
      // The destinations panel's counts too: the replica still counts the action as due.
      const due = async (path: string) =>
        (await get(path)).body.data.find((d: { host: string }) => d.host === '127.0.0.1').scheduled as number;
      expect(await due('/v1/destinations')).toBe((await due('/v1/destinations?consistency=strong')) + 1);
      // The lag shows in the metric and in /readyz (the console's Settings reads it there).
      await eventually(async () => (await metric('sched_read_replica_lag_seconds')) >= 1);
      expect((await readyReplica())?.lag_seconds).toBeGreaterThanOrEqual(1);
      // Another API process, bounded at 1 s of lag: the paused replica is past it, so its reads go to the primary.
      const strict = await startServer({
        databaseUrl: primary.url('sched'),
        role: 'api',
        env: {
          SCHED_READ_DATABASE_URL: standby.url('sched'),
          SCHED_READ_REPLICA_MAX_LAG_SECONDS: '1',
          SCHED_RATE_LIMIT_FACTOR: '100',
        },
      });
      try {
        await eventually(async () => (await readyReplica(strict))?.state === 'lagging');
        expect(await statusIn('/v1/actions?per_page=100', b.id, strict)).toBe('executed');
        expect(
          await metric('sched_read_replica_fallbacks_total', { reason: 'replica_lagging' }, strict),
        ).toBe(1);
        expect(strict.output()).toContain('read replica lagging past its bound');
      } finally {
        await strict.stop();
      }
      // Deciding routes never touch the replica: a create works while it replays nothing. And the account's
      // own write pins its next reads to the primary: the list shows the new action and the delivery.
      const c = await create('1h', '/c');
      expect(await statusIn('/v1/actions?per_page=100', c.id)).toBe('scheduled');
      expect(await statusIn('/v1/actions?per_page=100', b.id)).toBe('executed');
    } finally {
      await onStandby('select pg_wal_replay_resume()');
    }
    // Replay resumed: the replica catches up and serves the delivery too.
    const before = await replicaReads();
    await eventually(async () => {
      const status = await statusIn('/v1/actions?per_page=100', b.id);
      return status === 'executed' && (await replicaReads()) > before;
    });
  });

  it('a stopped standby: reads fall back to the primary with no failed request, creates go on', async () => {
    await eventually(async () => (await readyReplica())?.state === 'streaming');
    const fallbacks = async () =>
      (await metric('sched_read_replica_fallbacks_total', { reason: 'replica_error' })) +
      (await metric('sched_read_replica_fallbacks_total', { reason: 'replica_down' }));
    const before = await fallbacks();
    await standby.crash();
    try {
      // From the first read on: the replica's pooled connections are dead, and each read runs again on the primary.
      for (let i = 0; i < 10; i++) {
        expect((await get('/v1/actions?per_page=5')).status).toBe(200);
        expect((await get('/v1/stats')).status).toBe(200);
        expect((await get('/v1/audit-events?limit=5')).status).toBe(200);
      }
      await create('1h', '/d');
      expect(await fallbacks()).toBeGreaterThan(before);
      await eventually(async () => (await readyReplica())?.state === 'unavailable');
      expect(await metric('sched_read_replica_up')).toBe(0);
      // Log lines are written in batches, a moment after they are made.
      await eventually(async () => server.output().includes('read replica unavailable'));
    } finally {
      await standby.start();
    }
    // Back: it streams again and serves reads.
    await eventually(async () => (await readyReplica())?.state === 'streaming', 30_000);
    const reads = await replicaReads();
    await eventually(async () => {
      await get('/v1/actions?per_page=5');
      return (await replicaReads()) > reads;
    });
  });
});
