import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// The zero-config default. The embedded PostgreSQL's postmaster is SIGKILLed under a running
// `sched serve`; the service restarts it (crash recovery) and is ready again within 15 s, without a process
// restart; webhooks due meanwhile are delivered once each.
const WEBHOOKS = 15;

/** The cluster's postmaster.pid, wherever the launcher placed the cluster (in dataDir, or keyed by its path). */
function postmasterPidFile(dataDir: string): string {
  const inPlace = path.join(dataDir, 'pg', 'postmaster.pid');
  if (existsSync(inPlace)) return inPlace;
  const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  return path.join('/var/lib/sched-embedded', key, 'pg', 'postmaster.pid');
}

function postmasterPid(dataDir: string): number {
  return Number.parseInt(readFileSync(postmasterPidFile(dataDir), 'utf8').split('\n')[0] ?? '', 10);
}

describe('the embedded PostgreSQL is supervised', () => {
  let server: TestServer;
  let second: TestServer;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await startReceiver();
    // DATABASE_URL blank: the embedded database in SCHED_DATA_DIR.
    server = await startServer({
      databaseUrl: '',
      env: { LOG_LEVEL: 'info', SCHED_RATE_LIMIT_FACTOR: '100', SCHED_TIME_SCALE: '60' },
    });
    // A second process on the same data dir: both watch, one restarts.
    second = await startServer({
      databaseUrl: '',
      dataDir: server.dataDir,
      role: 'worker',
      env: server.env as Record<string, string>,
    });
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await server?.stop();
    await rx?.close();
  });

  it('SIGKILL of the postmaster: restarted by the service, ready within 15 s, 0 lost, 0 doubled', async () => {
    const ids: string[] = [];
    for (let i = 0; i < WEBHOOKS; i++) {
      const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
        schedule: { wait: '2s' },
        request: { url: `${rx.url}/embedded/${i}` },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    const pid = postmasterPid(server.dataDir);
    const logFrom = server.output().length + second.output().length;
    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now();
    const during = await api(server, server.apiKey, 'GET', '/v1/actions?limit=1');
    expect([503, 200]).toContain(during.status);
    await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 20_000, 100);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(postmasterPid(server.dataDir)).not.toBe(pid);
    expect(server.process.exitCode).toBeNull();
    expect(second.process.exitCode).toBeNull();

    await eventually(
      async () => rx.requests.filter((r) => r.path.startsWith('/embedded/')).length >= WEBHOOKS,
      60_000,
    );
    await eventually(async () => {
      for (const id of ids) {
        const a = await api(server, server.apiKey, 'GET', `/v1/actions/${id}`);
        if (a.body?.data?.status !== 'executed') return false;
      }
      return true;
    }, 30_000);
    // A send lost with the database is sent again before its action is recorded final, so once every action is
    // executed with one recorded attempt, the counts at the receiver are final too.
    for (const id of ids) {
      const a = await api(server, server.apiKey, 'GET', `/v1/actions/${id}`);
      expect(a.body.data.delivery_attempts).toHaveLength(1);
    }
    for (let i = 0; i < WEBHOOKS; i++) expect(rx.to(`/embedded/${i}`), `/embedded/${i}`).toHaveLength(1);
    // One of the two processes restarted it, with a clear line; neither restarted it twice.
    const logs = server.output() + second.output();
    expect(logs.length).toBeGreaterThan(logFrom);
    expect(logs.split('is gone; restarting it').length - 1, logs).toBe(1);
    expect(logs).toMatch(/embedded PostgreSQL: restarted in \d+ ms/);
  }, 120_000);
});
