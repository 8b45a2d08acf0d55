import { createClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { seedActions, sqlValue } from '../support/seed.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// Past 10,000 matching actions, `GET /v1/actions` estimates its `meta.total` instead of counting (a count of ten
// million took seconds) and says so with `total_exact: false`; below, the answer is as before, without the member.
// The SDK's walk and the CLI follow the estimate without losing an action.
describe('a list whose total is estimated, through HTTP, the SDK and the sched binary', {
  timeout: 120_000,
}, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  const SEEDED = 10_250;

  beforeAll(async () => {
    db = await createTestDatabase('list_estimate_e2e');
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    const accountId = await sqlValue<string>(db.url, 'select id from accounts order by created_at limit 1');
    const receiver = { url: 'http://127.0.0.1:9/hook', host: '127.0.0.1' };
    await seedActions(db.url, {
      accountId,
      count: SEEDED - 50,
      status: 'scheduled',
      name: 'bulk',
      ...receiver,
    });
    await seedActions(db.url, { accountId, count: 50, status: 'executed', name: 'few', ...receiver });
    await sqlValue(db.url, 'analyze actions');
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('answers an estimate past the limit, flagged, and a count below it, unflagged', async () => {
    const all = await api(server, server.apiKey, 'GET', '/v1/actions?per_page=100');
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(100);
    expect(all.body.meta.total_exact).toBe(false);
    expect(all.body.meta.total).toBeGreaterThan(10_000);
    expect(all.body.meta.last_page).toBe(Math.ceil(all.body.meta.total / 100));

    const few = await api(server, server.apiKey, 'GET', '/v1/actions?status=executed&per_page=20');
    expect(few.body.meta).toEqual({ current_page: 1, last_page: 3, total: 50, per_page: 20 });
  });

  it('walks every action with the SDK, and the CLI says the total is about so many', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const ids = new Set((await sched.actions.listAll({ per_page: 100 })).map((a) => a.id));
    expect(ids.size).toBe(SEEDED);

    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const listed = await runCli(['actions', 'list', '--per-page', '5'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/page 1 of about \d+ \(about \d+ actions; --page N or --all for more\)/);
  });
});
