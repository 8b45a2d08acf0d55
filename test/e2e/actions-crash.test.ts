import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { jobsAhead } from '../support/jobs.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { pastInstant } from '../support/wait.js';

// Scale-out and crashes: `--role api` and `--role worker` processes over one database; a worker killed with SIGKILL
// in the middle of a delivery loses nothing, because the attempt's lease expires and another worker retries it.
describe('separate api and worker processes, and a worker killed mid-delivery', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let apiServer: TestServer;
  let rx: Receiver;
  const workers: TestServer[] = [];
  const env = { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' };

  beforeAll(async () => {
    db = await createTestDatabase('crash');
    rx = await startReceiver();
    apiServer = await startServer({ databaseUrl: db.url, role: 'api', env });
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await apiServer?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('an api process alone schedules; a worker process delivers', async () => {
    const res = await api(apiServer, apiServer.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/split` },
    });
    expect(res.status).toBe(201);
    // No worker yet: past its due time (and the milliseconds a worker takes to send) the action waits, its job
    // durable in the database.
    await pastInstant(Date.parse(res.body.data.scheduled_for), 300);
    expect(rx.to('/split')).toHaveLength(0);
    expect(await jobsAhead(db.url, [res.body.data.id])).toBe(1);
    workers.push(await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: apiServer.dataDir }));
    await rx.waitFor('/split');
    await eventually(
      async () =>
        (await api(apiServer, apiServer.apiKey, 'GET', `/v1/actions/${res.body.data.id}`)).body.data
          .status === 'executed',
    );
  });

  it('SIGKILL during a delivery: the action is still delivered after a new worker starts, never left executing', async () => {
    // The first request is held (the worker dies while waiting for it); later ones answer at once.
    rx.on('/slow', (_req, hits) => (hits === 0 ? { status: 200, delayMs: 1_500 } : { status: 200 }));
    const res = await api(apiServer, apiServer.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/slow` },
    });
    await rx.waitFor('/slow', 1);
    const victim = workers.pop()!;
    await victim.kill();
    const during = (await api(apiServer, apiServer.apiKey, 'GET', `/v1/actions/${res.body.data.id}`)).body
      .data;
    expect(during.status).toBe('executing');

    workers.push(await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: apiServer.dataDir }));
    await rx.waitFor('/slow', 2, 30_000);
    const done = await eventually(async () => {
      const a = (await api(apiServer, apiServer.apiKey, 'GET', `/v1/actions/${res.body.data.id}`)).body.data;
      return a.status === 'executed' ? a : null;
    }, 30_000);
    expect(done.attempt_count).toBe(2);
    expect(done.delivery_attempts).toHaveLength(2);
    expect(done.delivery_attempts[0]).toMatchObject({ outcome: 'retryable', status_code: null });
    expect(done.delivery_attempts[0].error).toContain('lease');
    expect(done.delivery_attempts[1]).toMatchObject({ outcome: 'success', status_code: 200 });
  }, 60_000);

  it('SIGTERM drains: an in-flight delivery finishes and is recorded before the worker exits', async () => {
    rx.on('/drain', { status: 200, delayMs: 1500 });
    const res = await api(apiServer, apiServer.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/drain` },
    });
    await rx.waitFor('/drain', 1);
    const worker = workers.pop()!;
    const code = await worker.stop();
    expect(code).toBe(0);
    const a = (await api(apiServer, apiServer.apiKey, 'GET', `/v1/actions/${res.body.data.id}`)).body.data;
    expect(a.status).toBe('executed');
    expect(a.delivery_attempts).toHaveLength(1);
  }, 30_000);
});
