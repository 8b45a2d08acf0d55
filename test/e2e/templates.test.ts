import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, SchedApiError, type TemplateCreateBody, trigger as sdkTrigger } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { startSmtpServer } from '../support/peers.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, repoRoot, runCli, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/** A public trigger, as a form, a script or a no-code tool would send it: no Bearer header. */
let origin = '';

async function trigger(triggerUrl: string, body: Record<string, unknown> | URLSearchParams) {
  const form = body instanceof URLSearchParams;
  // The URL carries SCHED_PUBLIC_URL (localhost here); the test server listens on 127.0.0.1.
  const url = `${origin}${new URL(triggerUrl).pathname}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? body.toString() : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

// Templates end to end: CRUD over raw HTTP, triggers by JSON and by form, the resolved request at a real receiver,
// the resolved approval at a real SMTP server, and the 404 family of dead tokens.
describe('templates and public triggers', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let rx: Receiver;
  let key: string;
  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);
  const webhookTemplate = (): TemplateCreateBody => ({
    name: 'Order {{order_id}}',
    mode: 'webhook',
    request_config: {
      url: `${rx.url}/orders/{{order_id}}`,
      method: 'POST',
      headers: { 'X-Order': '{{order_id}}', 'X-Priority': '{{priority}}' },
      body: { order: '{{order_id}}', qty: '{{qty}}', note: 'priority {{priority}}' },
    },
    dedup_keys: ['order:{{order_id}}'],
    placeholders: [
      { name: 'order_id', required: true, description: 'The order number' },
      { name: 'priority', default: 'normal' },
      { name: 'qty', type: 'integer', default: 1 },
    ],
  });

  beforeAll(async () => {
    db = await createTestDatabase('templates');
    smtp = await startSmtpServer();
    rx = await startReceiver();
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_SMTP_URL: smtp.url,
        SCHED_EMAIL_FROM: 'sched <approvals@example.com>',
      },
    });
    key = server.apiKey;
    origin = server.url;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await rx?.close();
    await db?.drop();
  });

  it('resolves placeholders in URL, header, body and dedup key for JSON and form triggers; statistics move', async () => {
    const created = await call('POST', '/v1/templates', webhookTemplate());
    expect(created.status).toBe(201);
    const t = created.body.data;
    expect(t).toMatchObject({ type: 'action', mode: 'webhook', is_active: true, trigger_count: 0 });
    expect(t.trigger_token.length).toBeGreaterThanOrEqual(43);
    expect(t.trigger_url).toMatch(new RegExp(`^http://localhost:\\d+/t/${t.trigger_token}$`));

    const byJson = await trigger(t.trigger_url, { order_id: 'A-17', qty: 3, utm_source: 'mail' });
    expect(byJson.status).toBe(201);
    expect(byJson.body).toMatchObject({
      message: expect.any(String),
      data: { name: 'Order A-17', mode: 'webhook', status: 'scheduled', template_id: t.id },
      meta: { ignored_keys: ['utm_source'] },
    });
    const [json] = await rx.waitFor('/orders/A-17');
    expect(json!.headers['x-order']).toBe('A-17');
    expect(json!.headers['x-priority']).toBe('normal');
    expect(json!.json).toEqual({ order: 'A-17', qty: 3, note: 'priority normal' });
    const action = (await call('GET', `/v1/actions/${byJson.body.data.id}`)).body.data;
    expect(action.dedup_keys).toEqual(['order:A-17']);

    const byForm = await trigger(
      t.trigger_url,
      new URLSearchParams({ order_id: 'B-2', priority: 'high', qty: '' }),
    );
    expect(byForm.status).toBe(201);
    const [form] = await rx.waitFor('/orders/B-2');
    expect(form!.headers['x-priority']).toBe('high');
    // A blank form field is not supplied: the default applies.
    expect(form!.json).toEqual({ order: 'B-2', qty: 1, note: 'priority high' });

    const after = (await call('GET', `/v1/templates/${t.id}`)).body.data;
    expect(after.trigger_count).toBe(2);
    expect(Date.now() - new Date(after.last_triggered_at).getTime()).toBeLessThan(60_000);
    // Only the hash is kept: the detail view masks the token.
    expect(after.trigger_token).toBe(`${t.trigger_token.slice(0, 6)}…`);
    expect(after.trigger_url.endsWith(`/t/${t.trigger_token}`)).toBe(false);
    const list = await call('GET', '/v1/templates');
    expect(list.body.data.find((s: { id: string }) => s.id === t.id)).toMatchObject({
      trigger_count: 2,
      last_triggered_at: after.last_triggered_at,
    });
  });

  it('honours a schedule in the trigger body (JSON and form)', async () => {
    const t = (await call('POST', '/v1/templates', webhookTemplate())).body.data;
    const later = await trigger(t.trigger_url, { order_id: 'S-1', schedule: { wait: '2h' } });
    expect(later.status).toBe(201);
    const a = (await call('GET', `/v1/actions/${later.body.data.id}`)).body.data;
    expect(new Date(a.scheduled_for).getTime() - Date.now()).toBeGreaterThan(119 * 60_000);
    const byForm = await trigger(
      t.trigger_url,
      new URLSearchParams({ order_id: 'S-2', 'schedule.wait': '1d' }),
    );
    expect(byForm.status).toBe(201);
    const b = (await call('GET', `/v1/actions/${byForm.body.data.id}`)).body.data;
    expect(new Date(b.scheduled_for).getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
  });

  it("sends an approval template to the resolved recipient (one of the account's contacts)", async () => {
    await call('POST', '/v1/contacts', { name: 'Grace', email: 'grace@example.com' });
    const t = (
      await call('POST', '/v1/templates', {
        name: 'Refund {{amount}}',
        mode: 'approval',
        gate_config: {
          message: 'Refund {{amount}} to {{customer}}?',
          recipients: ['{{approver}}'],
          channels: ['email'],
        },
        placeholders: [
          { name: 'approver', required: true },
          { name: 'amount', required: true },
          { name: 'customer', default: 'a customer' },
        ],
      })
    ).body.data;
    const res = await trigger(t.trigger_url, { approver: 'grace@example.com', amount: '40 EUR' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mode: 'approval', name: 'Refund 40 EUR' });
    const [mail] = await smtp.waitFor('grace@example.com');
    expect(mail!.text).toContain('Refund 40 EUR to a customer?');
  });

  it('refuses a missing required placeholder with 422 naming it, creates nothing and counts the failure', async () => {
    const t = (await call('POST', '/v1/templates', webhookTemplate())).body.data;
    const before = (await call('GET', '/v1/actions?per_page=100')).body.meta.total;
    const res = await trigger(t.trigger_url, { qty: 2 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('order_id');
    expect(res.body.message).toContain('order_id');
    expect((await call('GET', '/v1/actions?per_page=100')).body.meta.total).toBe(before);
    const after = (await call('GET', `/v1/templates/${t.id}`)).body.data;
    expect(after).toMatchObject({ trigger_count: 0, failed_trigger_count: 1 });
    expect(after.last_error).toContain('order_id');
  });

  it('refuses a resolved action that fails validation (an interpolated URL that is not a URL)', async () => {
    const t = (
      await call('POST', '/v1/templates', {
        name: 'Ping',
        mode: 'webhook',
        request_config: { url: '{{target}}' },
        allowed_origins: ['https://files.example.com'],
        placeholders: [{ name: 'target', required: true }],
      })
    ).body.data;
    const res = await trigger(t.trigger_url, { target: 'ftp://files.example.com/x' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty(['request_config.url']);
  });

  it('refuses at save time: undeclared placeholders, impossible URLs, and a missing request config', async () => {
    const undeclared = await call('POST', '/v1/templates', {
      ...webhookTemplate(),
      name: 'Order {{orderid}}',
    });
    expect(undeclared.status).toBe(422);
    expect(undeclared.body.errors.name[0]).toContain('{{orderid}}');
    const ftp = await call('POST', '/v1/templates', {
      name: 'x',
      mode: 'webhook',
      request_config: { url: 'ftp://{{host}}/x' },
      placeholders: [{ name: 'host' }],
    });
    expect(ftp.status).toBe(422);
    expect(ftp.body.errors).toHaveProperty(['request_config.url']);
    const none = await call('POST', '/v1/templates', { name: 'x', mode: 'webhook' });
    expect(none.status).toBe(422);
    expect(none.body.errors).toHaveProperty('request_config');
  });

  it('updates only the supplied fields and keeps the URL; checks the template as it then stands', async () => {
    const t = (await call('POST', '/v1/templates', webhookTemplate())).body.data;
    const updated = await call('PUT', `/v1/templates/${t.id}`, { description: 'Orders from the shop' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      description: 'Orders from the shop',
      name: 'Order {{order_id}}',
      request_config: { url: `${rx.url}/orders/{{order_id}}` },
    });
    const bad = await call('PUT', `/v1/templates/${t.id}`, { placeholders: [] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('name');
    const renamed = await call('PUT', `/v1/templates/${t.id}`, { name: 'Shop order {{order_id}}' });
    expect(renamed.body.data.name).toBe('Shop order {{order_id}}');
    const res = await trigger(t.trigger_url, { order_id: 'U-1' });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('Shop order U-1');
  });

  it('404 for regenerated (new URL works), deleted, inactive (works again when toggled back) and unknown tokens', async () => {
    const t = (await call('POST', '/v1/templates', webhookTemplate())).body.data;
    const regenerated = await call('POST', `/v1/templates/${t.id}/regenerate-token`);
    expect(regenerated.status).toBe(200);
    const fresh = regenerated.body.data;
    expect(fresh.trigger_token).not.toBe(t.trigger_token);
    expect(new URL(fresh.trigger_url).pathname).toBe(`/t/${fresh.trigger_token}`);
    const old = await trigger(t.trigger_url, { order_id: 'R-1' });
    expect(old.status).toBe(404);
    expect((await trigger(fresh.trigger_url, { order_id: 'R-2' })).status).toBe(201);

    const off = await call('POST', `/v1/templates/${t.id}/toggle-active`);
    expect(off.body.data).toEqual({ id: t.id, is_active: false });
    const inactive = await trigger(fresh.trigger_url, { order_id: 'R-3' });
    expect(inactive.status).toBe(404);
    const on = await call('POST', `/v1/templates/${t.id}/toggle-active`);
    expect(on.body.data.is_active).toBe(true);
    expect((await trigger(fresh.trigger_url, { order_id: 'R-4' })).status).toBe(201);

    expect((await call('DELETE', `/v1/templates/${t.id}`)).status).toBe(204);
    const deleted = await trigger(fresh.trigger_url, { order_id: 'R-5' });
    expect(deleted.status).toBe(404);
    expect((await call('GET', `/v1/templates/${t.id}`)).status).toBe(404);
    const unknown = await trigger(`${server.url}/t/${'x'.repeat(43)}`, { order_id: 'R-6' });
    // One answer for all four: nothing tells a dead token from one that never was.
    for (const r of [old, inactive, deleted]) expect(r.body).toEqual(unknown.body);
    expect(unknown.status).toBe(404);
  });

  it('triggers a chain template: a running chain with the placeholder values as input', async () => {
    const chain = {
      name: 'Onboard {{who}}',
      type: 'chain',
      chain_steps: [
        {
          name: 'greet',
          type: 'webhook',
          url: `${rx.url}/greet/{{who}}`,
          body: { who: '{{who}}', plan: '{{plan}}' },
        },
        { name: 'pause', type: 'wait', wait: '1h' },
      ],
      placeholders: [
        { name: 'who', required: true },
        { name: 'plan', default: 'pro' },
      ],
    };
    const created = await call('POST', '/v1/templates', chain);
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ type: 'chain', mode: null });
    const undeclared = await call('POST', '/v1/templates', { ...chain, placeholders: [] });
    expect(undeclared.status).toBe(422);
    expect(Object.keys(undeclared.body.errors)).toContain('chain_steps.0.url');

    const res = await trigger(created.body.data.trigger_url, { who: 'ada' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Onboard ada',
      status: 'running',
      current_step: 0,
      template_id: created.body.data.id,
    });
    const [greet] = await rx.waitFor('/greet/ada');
    expect(greet!.json).toEqual({ who: 'ada', plan: 'pro' });
    const started = (await call('GET', `/v1/chains/${res.body.data.id}`)).body.data;
    expect(started).toMatchObject({ status: 'running', input: { who: 'ada', plan: 'pro' } });
    const missing = await trigger(created.body.data.trigger_url, {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toHaveProperty('who');
  });

  it('SDK and CLI: templates.* with a key, trigger without one', { timeout: 60_000 }, async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: key });
    const t = await sched.templates.create(webhookTemplate());
    const local = (u: string) => `${server.url}${new URL(u).pathname}`;
    const fired = await sdkTrigger(local(t.trigger_url), { order_id: 'SDK-1' }, { wait: '1h' });
    expect(fired.data).toMatchObject({ name: 'Order SDK-1', template_id: t.id, status: 'scheduled' });
    await expect(sdkTrigger(local(t.trigger_url), {})).rejects.toMatchObject({
      status: 422,
      errors: { order_id: expect.any(Array) },
    });
    expect((await sched.templates.get(t.id)).trigger_count).toBe(1);
    expect((await sched.templates.limits()).plan).toBe('business');
    const { trigger_url } = await sched.templates.regenerateToken(t.id);
    await expect(sdkTrigger(local(t.trigger_url), { order_id: 'x' })).rejects.toBeInstanceOf(SchedApiError);

    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const file = join(server.dataDir, 't.json');
    writeFileSync(file, JSON.stringify(webhookTemplate()));
    const created = await runCli(['templates', 'create', '--file', file, '--json'], env);
    expect(created.stderr).toBe('');
    const cliTemplate = JSON.parse(created.stdout).data;
    const pairs = ['order_id=CLI-1', 'qty:=5', 'ref=web'];
    const cliFired = await runCli(
      ['trigger', local(cliTemplate.trigger_url), ...pairs, '--wait', '1h', '--json'],
      {
        ...env,
        SCHED_API_KEY: '',
      },
    );
    expect(cliFired.code).toBe(0);
    expect(JSON.parse(cliFired.stdout)).toMatchObject({
      data: { name: 'Order CLI-1', template_id: cliTemplate.id },
      meta: { ignored_keys: ['ref'] },
    });
    const listed = await runCli(['templates', 'list'], env);
    expect(listed.stdout).toContain(cliTemplate.id);
    const toggled = await runCli(['templates', 'toggle', cliTemplate.id], env);
    expect(toggled.stdout).toContain('inactive');
    const dead = await runCli(['trigger', local(cliTemplate.trigger_url), 'order_id=CLI-2'], env);
    expect(dead.code).toBe(1);
    expect(dead.stderr).toContain('HTTP 404');
    const regenerated = await runCli(['templates', 'regenerate-token', t.id], env);
    expect(regenerated.stdout.trim()).toMatch(/\/t\/[A-Za-z0-9_-]{43}$/);
    expect(regenerated.stdout).not.toContain(new URL(trigger_url).pathname);
    const limits = await runCli(['templates', 'limits'], env);
    expect(limits.stdout).toMatch(/of 100 templates/);
    const shown = await runCli(['templates', 'get', cliTemplate.id], env);
    expect(shown.stdout).toContain('triggers');
    expect(shown.stdout).not.toContain(cliTemplate.trigger_token);
    expect((await runCli(['templates', 'delete', cliTemplate.id], env)).code).toBe(0);
  });

  it('limits a Free account to 3 templates and reports the limits', async () => {
    const free = JSON.parse(
      (
        await runCli(
          ['accounts', 'create', '--name', 'free-templates', '--plan', 'free', '--json'],
          server.env,
        )
      ).stdout,
    ).api_key as string;
    const body = { ...webhookTemplate(), max_attempts: 3 };
    for (let i = 0; i < 3; i++)
      expect((await api(server, free, 'POST', '/v1/templates', body)).status).toBe(201);
    const over = await api(server, free, 'POST', '/v1/templates', body);
    expect(over.status).toBe(422);
    expect(over.body.message).toMatch(/free plan allows 3 templates/);
    expect((await api(server, free, 'GET', '/v1/templates/limits')).body).toEqual({
      current: 3,
      max: 3,
      remaining: 0,
      plan: 'free',
    });
    const chain = await api(
      server,
      free,
      'DELETE',
      `/v1/templates/${(await api(server, free, 'GET', '/v1/templates')).body.data[0].id}`,
    );
    expect(chain.status).toBe(204);
    expect((await api(server, free, 'GET', '/v1/templates/limits')).body.remaining).toBe(1);
    // Another account's template is not there for this one.
    const mine = (await call('GET', '/v1/templates')).body.data[0].id as string;
    expect((await api(server, free, 'GET', `/v1/templates/${mine}`)).status).toBe(404);
    expect((await call('GET', '/v1/templates/limits')).body).toMatchObject({ plan: 'business', max: 100 });
  });
});

// The real limits (no factor): 60 triggers a minute per token. Logs at trace level, to look for tokens in them.
describe('trigger rate limits and logs', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase('templates_limits');
    // Sixty triggers to one host: the per-token limit is the subject here, not the destination-domain threshold
    // (test/e2e/domains.test.ts covers that), so the threshold is raised out of the way.
    server = await startServer({
      databaseUrl: db.url,
      env: { LOG_LEVEL: 'trace', SCHED_DOMAIN_DAY_LIMIT: '1000', SCHED_DOMAIN_MONTH_LIMIT: '10000' },
    });
    origin = server.url;
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('answers the 61st trigger in a minute on one token with 429 and Retry-After', async () => {
    const t = (
      await api(server, server.apiKey, 'POST', '/v1/templates', {
        name: 'Tick',
        mode: 'webhook',
        request_config: { url: 'https://example.com/tick' },
        trigger_limit_per_hour: 1000,
        trigger_limit_per_day: 1000,
      })
    ).body.data;
    // Fixed one-minute windows: start early in one, so all 61 calls fall in it.
    await eventually(async () => new Date().getUTCSeconds() < 40, 25_000, 200);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof trigger>> | undefined;
    for (let i = 0; i < 61; i++) {
      last = await trigger(t.trigger_url, { schedule: { wait: '1h' } });
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get('x-ratelimit-limit')).toBe('60');
        expect(last.headers.get('x-ratelimit-remaining')).toBe('59');
        expect(Number(last.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      }
    }
    expect(statuses.slice(0, 60).every((s) => s === 201)).toBe(true);
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('never writes a trigger token to the log output, at trace level', async () => {
    const created = await api(server, server.apiKey, 'POST', '/v1/templates', {
      name: 'Logged {{who}}',
      mode: 'webhook',
      request_config: { url: 'https://example.com/{{who}}' },
      placeholders: [{ name: 'who', required: true }],
    });
    const t = created.body.data;
    const tokens = [t.trigger_token as string];
    expect((await trigger(t.trigger_url, { who: 'ada', schedule: { wait: '1h' } })).status).toBe(201);
    expect(
      (await trigger(t.trigger_url, new URLSearchParams({ who: 'bob', 'schedule.wait': '1h' }))).status,
    ).toBe(201);
    expect((await trigger(t.trigger_url, {})).status).toBe(422);
    const regenerated = await api(server, server.apiKey, 'POST', `/v1/templates/${t.id}/regenerate-token`);
    tokens.push(regenerated.body.data.trigger_token);
    expect((await trigger(t.trigger_url, { who: 'eve' })).status).toBe(404);
    expect(
      (await trigger(regenerated.body.data.trigger_url, { who: 'fay', schedule: { wait: '1h' } })).status,
    ).toBe(201);
    expect((await api(server, server.apiKey, 'GET', `/v1/templates/${t.id}`)).status).toBe(200);

    const output = server.output();
    expect(output).toContain('/t/[redacted]');
    for (const token of tokens) {
      expect(output.includes(token)).toBe(false);
      expect(output.includes(token.slice(0, 16))).toBe(false);
    }
  });
});

describe('templates in the OpenAPI document', () => {
  const doc = JSON.parse(readFileSync(join(repoRoot, 'docs', 'openapi.json'), 'utf8'));

  it('declares the trigger without a security requirement, for JSON and form bodies', () => {
    const op = doc.paths['/t/{token}'].post;
    expect(op.security).toEqual([]);
    expect(Object.keys(op.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    expect(Object.keys(op.responses).sort()).toEqual(['201', '400', '403', '404', '422', '429']);
  });

  it('declares every template endpoint behind the Bearer key', () => {
    for (const path of ['/v1/templates', '/v1/templates/limits', '/v1/templates/{id}']) {
      for (const op of Object.values(doc.paths[path]) as { security: unknown }[])
        expect(op.security).toEqual([{ bearerAuth: [] }]);
    }
  });
});
