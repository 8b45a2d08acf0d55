import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// Nothing held waits for a restart. An attempt held behind its account's delivery cap stays durable
// and due in its row, unclaimed (no lease runs while it waits, and no job exists to expire: workers claim from the
// actions table itself); and an overdue attempt nothing announced is taken up by the running worker's scan of the due
// index, with no restart.
describe('attempts held behind a cap, and overdue attempts nothing announced', () => {
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

  it('a backlog behind the cap: the waiting attempts stay due and unclaimed in their rows, each is delivered once', async () => {
    const COUNT = 20;
    rx.on('/held', { status: 200, delayMs: 400 });
    for (let i = 0; i < COUNT; i++) {
      const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
        schedule: { wait: '2s' },
        request: { url: `${rx.url}/held?i=${i}` },
      });
      expect(res.status).toBe(201);
    }
    // Mid-backlog: one request at a time is out (the cap); the others wait due in their rows, with no lease running.
    // The cap frees its room when a request is answered, so a row may still be recording that outcome (executing)
    // beside the next one out: two executing rows at most, never two requests at once (checked at the end).
    await rx.waitFor('/held', 8, 30_000);
    const { rows } = await sql.query<{ executing: number; waiting: number }>(
      `select count(*) filter (where status = 'executing')::int as executing,
              count(*) filter (where status in ('scheduled', 'resolved') and next_attempt_at <= now()
                                 and lease_until is null)::int as waiting
         from actions`,
    );
    expect(rx.to('/held').length).toBeLessThan(COUNT - 4);
    expect(rows[0]!.executing).toBeLessThanOrEqual(2);
    expect(rows[0]!.waiting).toBeGreaterThan(0);
    // No job per attempt exists to expire or to be retried.
    const jobs = await sql.query<{ n: number }>(
      "select count(*)::int as n from pgboss.job where name = 'sched.action-due'",
    );
    expect(jobs.rows[0]!.n).toBe(0);

    await rx.waitFor('/held', COUNT, 60_000);
    await eventually(async () => {
      const r = await sql.query<{ n: number }>(
        "select count(*)::int as n from actions where status <> 'executed'",
      );
      return r.rows[0]!.n === 0;
    }, 20_000);
    const seen = rx.to('/held').map((r) => r.headers['x-sched-action-id'] ?? r.json);
    expect(rx.to('/held')).toHaveLength(COUNT);
    expect(new Set(seen).size).toBe(COUNT);
    // The cap itself: each request arrived only after the one before it had been answered.
    const byArrival = [...rx.to('/held')].sort((a, b) => a.at - b.at);
    for (let i = 1; i < byArrival.length; i++)
      expect(byArrival[i]!.at).toBeGreaterThanOrEqual(
        byArrival[i - 1]!.repliedAt ?? Number.POSITIVE_INFINITY,
      );
  }, 90_000);

  it('an overdue attempt nothing announced is delivered by the running worker, late, without a restart', async () => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/stranded` },
    });
    expect(res.status).toBe(201);
    // As an outage or a worker that died before claiming it would leave it: resolved and due 30 s ago, with no
    // announcement of it (the row changed behind the service's back).
    await sql.query(
      `update actions set status = 'resolved', next_attempt_at = now() - interval '30 seconds' where id = $1`,
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
