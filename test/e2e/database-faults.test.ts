import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, startServer, type TestServer } from '../support/server.js';

// A slow database. A lock held by another session makes every statement on `actions` wait: each
// such request gets statement_timeout (503) and gives its connection back healthy; more concurrent requests than
// the pool has connections queue for a bounded time, then answer 503: never a hang, never a 500.
describe('statement timeout and pool exhaustion', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let admin: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase('faults');
    server = await startServer({
      databaseUrl: db.url,
      role: 'api',
      env: {
        LOG_LEVEL: 'info',
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_DB_STATEMENT_TIMEOUT_MS: '1500',
        SCHED_DB_CONNECT_TIMEOUT_MS: '1000',
      },
    });
    admin = new pg.Client({ connectionString: db.url, application_name: 'test-locker' });
    admin.on('error', () => {});
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
    await db?.drop();
  });

  it('60 concurrent requests on a locked table (pool of 20): all answer 503 within bounds, then the service is healthy', async () => {
    expect((await api(server, server.apiKey, 'GET', '/v1/actions?limit=1')).status).toBe(200);
    const logFrom = server.output().length;
    await admin.query('begin');
    await admin.query('lock table actions in access exclusive mode');
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const res = await api(server, server.apiKey, 'GET', '/v1/actions?limit=1');
        return {
          status: res.status,
          body: res.body,
          retryAfter: res.headers.get('retry-after'),
          ms: Date.now() - started,
        };
      }),
    );
    await admin.query('rollback');

    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([503]));
    for (const a of answers) {
      expect(a.body).toMatchObject({ code: 'service_unavailable' });
      expect(typeof a.body.message).toBe('string');
      expect(a.retryAfter).not.toBeNull();
    }
    // Queued with a bound: at most a connect wait plus a statement timeout each (1 + 1.5 s), far below 10 s.
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(10_000);
    // Both kinds (statement timeouts for requests that had a connection, no connection in time for the others) say
    // the database was slow, not away.
    expect(new Set(answers.map((a) => a.body.message))).toEqual(
      new Set(['the database did not answer in time; retry shortly']),
    );

    // The connections came back healthy: the next requests succeed, none is left idle in a transaction.
    for (let i = 0; i < 30; i++)
      expect((await api(server, server.apiKey, 'GET', '/v1/actions?limit=1')).status).toBe(200);
    const stuck = await admin.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name like 'sched%' and state like 'idle in transaction%'",
    );
    expect(stuck.rows[0]!.n).toBe(0);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    // A busy pool is not an outage: no "database unavailable" warning, nothing at error level.
    const log = server.output().slice(logFrom);
    expect(log).not.toContain('database unavailable');
    expect(log).not.toMatch(/"level":50/);
  }, 60_000);
});
