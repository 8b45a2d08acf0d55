import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/**
 * Templates and chains stored by a release before allowed_origins, and what a refused trigger costs. An old row is
 * made as an older release left it: saved now, then its allowed_origins removed in SQL. The loopback receiver shows where a request would really have gone: the attacker's value
 * `127.0.0.1:<port>/evil?` turns `http://{{tenant}}.hooks.example.com/orders` into a request for `/evil`.
 */
describe('templates saved before allowed_origins', { timeout: 120_000 }, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let key: string;
  let evil: string;
  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);

  async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** A public trigger: no Bearer header. */
  async function trigger(triggerUrl: string, body: Record<string, unknown>) {
    const res = await fetch(`${server.url}${new URL(triggerUrl).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  /** A chain template whose step 1 takes its host from `tenant`, stored as 0.1.0 stored it (no allowed_origins). */
  async function legacyChainTemplate(name: string) {
    const res = await call('POST', '/v1/templates', {
      name,
      type: 'chain',
      placeholders: [{ name: 'tenant', required: true }],
      chain_steps: [
        { name: 'wait', type: 'wait', delay: '1s' },
        {
          name: 'call',
          type: 'webhook',
          url: 'http://{{tenant}}.hooks.example.com/orders',
          method: 'POST',
          headers: { Authorization: 'Bearer chain-SECRET' },
          allowed_origins: ['http://a.hooks.example.com'],
        },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const t = res.body.data as { id: string; trigger_url: string };
    await sql(
      `update templates set chain_steps = jsonb_set(chain_steps, '{1}', (chain_steps->1) - 'allowed_origins') where id = $1`,
      [t.id],
    );
    return t;
  }

  beforeAll(async () => {
    db = await createTestDatabase('legacy_templates');
    rx = await startReceiver();
    evil = `${new URL(rx.url).host}/evil?`;
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it("a legacy chain template's trigger is a 422 recorded on the template; nothing reaches the value's host", async () => {
    const t = await legacyChainTemplate('legacy chain');
    const res = await trigger(t.trigger_url, { tenant: evil });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.errors['chain_steps.1.url'][0]).toContain('allowed_origins');
    const view = (await call('GET', `/v1/templates/${t.id}`)).body.data;
    expect(view.last_error).toContain('chain_steps.1.url');
    expect(view.failed_trigger_count).toBe(1);
    expect((await call('GET', '/v1/chains')).body.data).toHaveLength(0);
    expect(rx.to('/evil')).toHaveLength(0);
  });

  it('a legacy action template with a path prefix from a value is a 422 too', async () => {
    const res = await call('POST', '/v1/templates', {
      name: 'legacy action',
      mode: 'webhook',
      request_config: { url: `${rx.url}{{path}}`, headers: { Authorization: 'Bearer action-SECRET' } },
      allowed_origins: [rx.url],
      placeholders: [{ name: 'path', required: true }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const t = res.body.data as { id: string; trigger_url: string };
    await sql(`update templates set allowed_origins = '{}' where id = $1`, [t.id]);
    const refused = await trigger(t.trigger_url, { path: '@evil.example.net/steal' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors['request_config.url'][0]).toContain('allowed_origins');
    expect((await call('GET', `/v1/templates/${t.id}`)).body.data.last_error).toContain('request_config.url');
  });

  it("a chain a template's trigger made is held to the rule when its step starts (its steps lost allowed_origins)", async () => {
    const made = await call('POST', '/v1/templates', {
      name: 'made before',
      type: 'chain',
      placeholders: [{ name: 'tenant', required: true }],
      chain_steps: [
        { name: 'wait', type: 'wait', delay: '2s' },
        {
          name: 'call',
          type: 'webhook',
          url: 'http://{{tenant}}/orders',
          headers: { Authorization: 'Bearer chain-SECRET' },
          allowed_origins: ['http://a.hooks.example.com'],
        },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await trigger(made.body.data.trigger_url, { tenant: evil });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const chainId = res.body.data.id as string;
    // As an older release stored the chain: its step with no allowed_origins.
    await sql(
      `update chain_steps set definition = definition - 'allowed_origins' where chain_id = $1 and index = 1`,
      [chainId],
    );
    const step = await eventually(async () => {
      const chain = (await call('GET', `/v1/chains/${chainId}`)).body.data;
      return chain.steps[1].status === 'pending' || chain.steps[1].status === 'running'
        ? null
        : chain.steps[1];
    });
    // Settled without an action: nothing was sent anywhere.
    expect(step).toMatchObject({ status: 'failed', action_id: null });
    expect(step.error).toContain('allowed_origins');
    expect(rx.to('/evil')).toHaveLength(0);
  });

  it('the upgrade deactivates a template that fails the rule, and names why; the others stay active', async () => {
    const legacy = await legacyChainTemplate('legacy at upgrade');
    const fine = await call('POST', '/v1/templates', {
      name: 'fine',
      mode: 'webhook',
      request_config: { url: `${rx.url}/fine/{{id}}` },
      placeholders: [{ name: 'id', required: true }],
    });
    expect(fine.status).toBe(201);
    await server.stop();
    // The database as an upgrade finds it: the migration not yet applied.
    await sql(`delete from sched_migrations where name = 'Migration20261128134000_LegacyTemplateOrigins'`);
    server = await startServer({
      databaseUrl: db.url,
      dataDir: server.dataDir,
      env: { SCHED_RATE_LIMIT_FACTOR: '100' },
    });
    const view = (await call('GET', `/v1/templates/${legacy.id}`)).body.data;
    expect(view.is_active).toBe(false);
    expect(view.last_error).toContain('chain_steps.1.url');
    expect((await trigger(legacy.trigger_url, { tenant: evil })).status).toBe(404);
    expect((await call('GET', `/v1/templates/${fine.body.data.id}`)).body.data.is_active).toBe(true);
    expect((await trigger(fine.body.data.trigger_url, { id: 'x' })).status).toBe(201);
    await rx.waitFor('/fine/x');
    expect(rx.to('/evil')).toHaveLength(0);
  });

  it('only accepted triggers spend the caps: refused ones cannot lock a published form', async () => {
    const res = await call('POST', '/v1/templates', {
      name: 'form',
      mode: 'webhook',
      request_config: { url: `${rx.url}/form/{{n}}` },
      placeholders: [{ name: 'n', type: 'integer', required: true }],
      trigger_limit_per_hour: 3,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const url = res.body.data.trigger_url as string;
    for (let i = 0; i < 8; i++) expect((await trigger(url, { n: 'not a number' })).status).toBe(422);
    for (let i = 1; i <= 3; i++) {
      const ok = await trigger(url, { n: i });
      expect(ok.status).toBe(201);
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(3 - i));
    }
    const over = await trigger(url, { n: 4 });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // A refusal spends nothing either: the count stays at the cap, not past it.
    const [window] = await sql(`select hits from rate_limit_windows where bucket = $1`, [
      `templateTriggersPerHour:${res.body.data.id}`,
    ]);
    expect(window.hits).toBe(3);
  });
});
