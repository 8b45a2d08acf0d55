import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, startServer, type TestServer } from '../support/server.js';

/** A self-hosted server's plan table (SCHED_PLANS_FILE): the default account's business plan, lifted. */
describe('SCHED_PLANS_FILE on a running server', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sched-plans-')), 'plans.json');
    writeFileSync(
      file,
      JSON.stringify({
        business: {
          schedule_horizon_days: 3650,
          max_attempts: 50,
          templates: 1000,
          emails_per_month: 1_000_000,
        },
      }),
    );
    db = await createTestDatabase('self_hosted_plans');
    server = await startServer({ databaseUrl: db.url, env: { SCHED_PLANS_FILE: file } });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('reports the configured limits and keeps the others at their defaults', async () => {
    const quota = await api(server, server.apiKey, 'GET', '/v1/quota');
    expect(quota.status).toBe(200);
    expect(quota.body.data ?? quota.body).toMatchObject({
      plan: 'business',
      emails: { limit: 1_000_000 },
      sms: { limit: 1_000 },
      limits: { max_attempts: 50, schedule_horizon_days: 3650, templates: 1000, retention_days: 365 },
    });
  });

  it('accepts an action three years ahead with 50 attempts, and still refuses past the configured caps', async () => {
    const at = new Date(Date.now() + 3 * 365 * 86_400_000).toISOString();
    const created = await api(server, server.apiKey, 'POST', '/v1/actions', {
      scheduled_for: at,
      max_attempts: 50,
      request: { url: 'https://example.com/later' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ max_attempts: 50 });

    const tooFar = await api(server, server.apiKey, 'POST', '/v1/actions', {
      scheduled_for: new Date(Date.now() + 11 * 365 * 86_400_000).toISOString(),
      request: { url: 'https://example.com/later' },
    });
    expect(tooFar.status).toBe(422);
    expect(tooFar.body.errors.scheduled_for[0]).toMatch(/3650 days/);
    const tooMany = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      max_attempts: 51,
      request: { url: 'https://example.com/later' },
    });
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.errors)).toEqual(['max_attempts']);
  });
});
