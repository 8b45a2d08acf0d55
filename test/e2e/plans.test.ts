import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

/** Every row of the plan table is refused where the resource is created, naming the limit and the plan. */
describe('plan limits on a Free account', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let free: string;
  let accountId: string;
  const create = (body: Record<string, unknown>) => api(server, free, 'POST', '/v1/actions', body);
  const period = () => new Date().toISOString().slice(0, 7);
  /** Spends a monthly allowance the way sends and creates do, without sending a hundred messages. */
  const setUsage = async (metric: string, used: number) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(
        `insert into usage_counters (account_id, period, metric, used) values ($1, $2, $3, $4)
         on conflict (account_id, period, metric) do update set used = excluded.used`,
        [accountId, period(), metric, used],
      );
    } finally {
      await client.end();
    }
  };
  const approval = (recipients: string[], extra: Record<string, unknown> = {}) => ({
    mode: 'approval',
    schedule: { wait: '1h' },
    gate: { message: 'Ship it?', recipients, ...extra },
  });

  beforeAll(async () => {
    db = await createTestDatabase('plans');
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    const created = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'free-plan', '--plan', 'free', '--json'], server.env))
        .stdout,
    );
    free = created.api_key;
    accountId = created.account.id;
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('refuses a scheduled_for beyond the 30-day horizon with 422 naming the plan', async () => {
    const at = new Date(Date.now() + 31 * 86_400_000).toISOString();
    const res = await create({ scheduled_for: at, request: { url: 'http://127.0.0.1:9/x' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.scheduled_for[0]).toMatch(/30 days.*free plan/);
    const within = new Date(Date.now() + 29 * 86_400_000).toISOString();
    expect((await create({ scheduled_for: within, request: { url: 'http://127.0.0.1:9/x' } })).status).toBe(
      201,
    );
  });

  it('refuses one recipient over the plan count with 422 on gate.recipients', async () => {
    const four = ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'];
    const res = await create(approval(four));
    expect(res.status).toBe(422);
    expect(res.body.errors['gate.recipients'][0]).toMatch(/free plan allows at most 3 recipients/);
    expect((await create(approval(four.slice(0, 3)))).status).toBe(201);
  });

  it('refuses Slack: a channel with 403, a gate channel with 422', async () => {
    const channel = await api(server, free, 'POST', '/v1/channels', {
      name: 'ops',
      type: 'slack',
      webhook_url: 'https://hooks.slack.com/services/T/B/x',
    });
    expect(channel.status).toBe(403);
    expect(channel.body.message).toMatch(/Business/);
    const gate = await create(approval(['a@example.com'], { channels: ['slack'] }));
    expect(gate.status).toBe(422);
    expect(gate.body.errors['gate.channels'][0]).toMatch(/Business/);
  });

  it('refuses the 4th team member with 403 naming the limit and the plan', async () => {
    for (const name of ['Ada', 'Grace', 'Linus']) {
      const res = await api(server, free, 'POST', '/v1/team-members', { name, email: `${name}@example.com` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const over = await api(server, free, 'POST', '/v1/team-members', {
      name: 'Ken',
      email: 'ken@example.com',
    });
    expect(over.status).toBe(403);
    expect(over.body.message).toMatch(/free plan allows 3 team members/);
    expect((await api(server, free, 'GET', '/v1/quota')).body.data.team_members).toEqual({
      used: 3,
      limit: 3,
    });
  });

  it('refuses an approval by email once the 100 emails of the month are spent: 403 naming the limit', async () => {
    await setUsage('emails', 99);
    expect((await create(approval(['a@example.com']))).status).toBe(201);
    await setUsage('emails', 100);
    const res = await create(approval(['a@example.com']));
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/free plan allows 100 email notifications a month/);
    // SMS has its own allowance, untouched.
    expect((await create(approval(['+15551234567']))).status).toBe(201);
  });

  it('refuses the 101st action of the month with 403 naming the limit and the plan', async () => {
    const q = (await api(server, free, 'GET', '/v1/quota')).body.data;
    await setUsage('actions', 100);
    const res = await create({ schedule: { wait: '1h' }, request: { url: 'http://127.0.0.1:9/x' } });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/free plan allows 100 actions a month/);
    expect(q).toMatchObject({
      plan: 'free',
      actions: { limit: 100 },
      emails: { used: 100, limit: 100 },
      sms: { limit: 50 },
      chat_messages: { used: 0, limit: 0 },
      team_members: { used: 3, limit: 3 },
      limits: {
        max_attempts: 3,
        schedule_horizon_days: 30,
        retention_days: 30,
        max_recipients: 3,
        templates: 3,
        chains: false,
        slack_teams: false,
      },
    });
  });
});
