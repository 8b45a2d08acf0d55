import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// Issue 21, item 7: nothing held waits for a restart. An attempt held behind its account's delivery cap stays
// durable and due in its row, its pg-boss job completes rather than stay active into the job expiry (here 1 s,
// against a backlog of about 8 s), and an overdue attempt no trigger fires (its job lost) is taken up by the
// running worker's overdue sweep, with no restart.
describe('attempts held behind a cap, and overdue attempts without a job', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let sql: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase('held');
    rx = await startReceiver();
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_DELIVERY_ACCOUNT_CONCURRENCY: '1',
        SCHED_JOB_EXPIRE_SECONDS: '1',
      },
    });
    sql = new pg.Client({ connectionString: db.url });
    sql.on('error', () => {});
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('a backlog longer than the job expiry: held attempts keep no active job, none expires, each is delivered once', async () => {
    const COUNT = 20;
    rx.on('/held', { status: 200, delayMs: 400 });
    for (let i = 0; i < COUNT; i++) {
      const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
        schedule: { wait: '2s' },
        request: { url: `${rx.url}/held?i=${i}` },
      });
      expect(res.status).toBe(201);
    }
    // Mid-backlog: one attempt at a time is delivered (the cap), the others are held without an active job. A job
    // fetched in the batch of the attempt being delivered stays active for that delivery (400 ms), never for the
    // backlog: none has been active for 2 s, while the backlog lasts about 8 s.
    await rx.waitFor('/held', 8, 30_000);
    const { rows } = await sql.query<{ active: number }>(
      `select count(*)::int as active from pgboss.job where name = 'sched.action-due' and state = 'active'
          and started_on < now() - interval '2 seconds'`,
    );
    expect(rx.to('/held').length).toBeLessThan(COUNT - 4);
    expect(rows[0]!.active).toBe(0);

    await rx.waitFor('/held', COUNT, 60_000);
    await eventually(async () => {
      const r = await sql.query<{ n: number }>(
        "select count(*)::int as n from actions where status <> 'executed'",
      );
      return r.rows[0]!.n === 0;
    }, 20_000);
    const seen = rx.to('/held').map((r) => r.headers['x-sched-action-id'] ?? r.json);
    expect(rx.to('/held')).toHaveLength(COUNT);
    expect(seen.length).toBe(COUNT);
    // No job of the backlog expired (pg-boss retries an expired job; a retried one has retry_count > 0).
    const expired = await sql.query<{ n: number }>(
      "select count(*)::int as n from pgboss.job where name = 'sched.action-due' and (retry_count > 0 or state = 'failed')",
    );
    expect(expired.rows[0]!.n).toBe(0);
  }, 90_000);

  it('an overdue attempt whose job is gone is delivered by the running worker, late, without a restart', async () => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/stranded` },
    });
    expect(res.status).toBe(201);
    // As a worker that died holding it would leave it: resolved, due 30 s ago, its job written (and since lost).
    await sql.query(
      `update actions set status = 'resolved', next_attempt_at = now() - interval '30 seconds',
              job_due_at = now() - interval '30 seconds' where id = $1`,
      [res.body.data.id],
    );
    await rx.waitFor('/stranded', 1, 20_000);
    const done = await eventually(async () => {
      const a = (await api(server, server.apiKey, 'GET', `/v1/actions/${res.body.data.id}`)).body.data;
      return a.status === 'executed' ? a : null;
    });
    expect(done.delivery_attempts).toHaveLength(1);
    expect(done.delivery_attempts[0].lateness_ms).toBeGreaterThanOrEqual(30_000);
    // Executed with one recorded attempt: a second send would have come before it was recorded final.
    expect(rx.to('/stranded')).toHaveLength(1);
  }, 60_000);
});
