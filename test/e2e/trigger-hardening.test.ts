import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/**
 * The public trigger surface and the chain engine against an attacker's probes: each probe is sent as the attacker would, and the receiver on loopback
 * shows where the request really went.
 */
// Generous per-test time: several tests make dozens of calls, on a machine shared with other suites.
describe('trigger and chain hardening', { timeout: 120_000 }, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let key: string;
  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);

  /** A public trigger: no Bearer header. */
  async function trigger(triggerUrl: string, body: Record<string, unknown> | string) {
    const res = await fetch(`${server.url}${new URL(triggerUrl).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  async function template(body: Record<string, unknown>) {
    const res = await call('POST', '/v1/templates', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: string; trigger_url: string };
  }

  beforeAll(async () => {
    db = await createTestDatabase('hardening');
    rx = await startReceiver();
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  describe('typed placeholders and deep values', () => {
    it('a value that does not fit its placeholder is a 422 naming it; anonymous values are strings', async () => {
      const t = await template({
        name: 'Typed {{id}}',
        mode: 'webhook',
        request_config: { url: `${rx.url}/typed`, body: { id: '{{id}}', qty: '{{qty}}' } },
        placeholders: [
          { name: 'id', required: true },
          { name: 'qty', type: 'integer', default: 1 },
        ],
      });
      const obj = await trigger(t.trigger_url, { id: { $ne: null, role: 'admin' } });
      expect(obj.status).toBe(422);
      expect(obj.body.errors).toHaveProperty('id');
      const qty = await trigger(t.trigger_url, { id: 'A', qty: 'lots' });
      expect(qty.status).toBe(422);
      expect(qty.body.errors).toHaveProperty('qty');
      expect(qty.body.message).toContain('qty');
      expect((await trigger(t.trigger_url, { id: 7, qty: '3' })).status).toBe(201);
      const [got] = await rx.waitFor('/typed');
      expect(got!.json).toEqual({ id: '7', qty: 3 });
      const proto = await call('POST', '/v1/templates', {
        name: 'x',
        mode: 'webhook',
        request_config: { url: `${rx.url}/x` },
        placeholders: [{ name: 'constructor' }],
      });
      expect(proto.status).toBe(422);
    });

    it('deep JSON in a trigger body or a chain input is a 422, never a 500', async () => {
      const t = await template({
        name: 'Order {{id}}',
        mode: 'webhook',
        request_config: { url: `${rx.url}/deep` },
        placeholders: [{ name: 'id', required: true }],
      });
      // Written as text: JSON.stringify itself gives up around 5,000 levels.
      const deep = `${'['.repeat(5000)}"x"${']'.repeat(5000)}`;
      const res = await trigger(t.trigger_url, `{"id":${deep}}`);
      expect(res.status).toBe(422);
      const extra = await trigger(t.trigger_url, `{"id":"A","other":${deep}}`);
      expect(extra.status).toBe(422);
      const steps = JSON.stringify([
        { name: 'a', type: 'wait', delay: '1s' },
        { name: 'b', type: 'wait', delay: '1s' },
      ]);
      const chain = await call(
        'POST',
        '/v1/chains',
        `{"name":"deep-input","input":{"v":${deep}},"steps":${steps}}`,
      );
      expect(chain.status).toBe(422);
      expect(Object.keys(chain.body.errors).join(' ')).toContain('input');
    });
  });

  it('a read-only key sees no header value and no webhook_secret in any view that embeds a request or a step', async () => {
    const accounts = await runCli(['accounts', 'list', '--json'], server.env);
    const accountId = JSON.parse(accounts.stdout).data[0].id as string;
    const created = await runCli(
      ['keys', 'create', '--account', accountId, '--scopes', 'read', '--json'],
      server.env,
    );
    const readKey = JSON.parse(created.stdout).api_key as string;
    const secrets = [
      'Bearer downstream-SECRET-123',
      'Bearer step-SECRET-456',
      'step-secret-0123456789abcdef',
    ];
    const action = await template({
      name: 'Masked',
      mode: 'webhook',
      request_config: { url: `${rx.url}/masked`, headers: { Authorization: secrets[0] } },
    });
    const chain = await template({
      name: 'Masked chain',
      type: 'chain',
      chain_steps: [
        {
          name: 'a',
          type: 'http_call',
          url: `${rx.url}/masked-step`,
          headers: { Authorization: secrets[1] },
          webhook_secret: secrets[2],
        },
        { name: 'b', type: 'wait', delay: '1s' },
      ],
    });
    // Every view that embeds a stored request or a step: template detail (both types), the list, a chain's
    // detail and list, and the action a trigger made.
    const fired = await trigger(action.trigger_url, {});
    expect(fired.status).toBe(201);
    const views = [
      `/v1/templates/${action.id}`,
      `/v1/templates/${chain.id}`,
      '/v1/templates',
      `/v1/actions/${fired.body.data.id}`,
      '/v1/actions',
      '/v1/chains',
    ];
    const firedChain = await trigger(chain.trigger_url, {});
    expect(firedChain.status).toBe(201);
    views.push(`/v1/chains/${firedChain.body.data.id}`);
    for (const path of views) {
      const res = await api(server, readKey, 'GET', path);
      expect(res.status, path).toBe(200);
      const text = JSON.stringify(res.body);
      for (const secret of secrets) expect(text, `${path} shows ${secret}`).not.toContain(secret);
    }
    const masked = (await api(server, readKey, 'GET', `/v1/templates/${chain.id}`)).body.data;
    expect(masked.chain_steps[0]).toMatchObject({ headers: { Authorization: '***' }, signed: true });
    expect(masked.chain_steps[0]).not.toHaveProperty('webhook_secret');
    // A write key sees the header values (it could set them) but never a webhook_secret.
    const full = (await call('GET', `/v1/templates/${chain.id}`)).body.data;
    expect(full.chain_steps[0]).toMatchObject({ headers: { Authorization: secrets[1] }, signed: true });
    expect(JSON.stringify(full)).not.toContain(secrets[2]);
    expect(
      (await call('GET', `/v1/templates/${action.id}`)).body.data.request_config.headers.Authorization,
    ).toBe(secrets[0]);
  });

  it('an anonymous trigger cannot name a free recipient; a contact by stored address or id can be', async () => {
    const contact = (
      await call('POST', '/v1/contacts', { name: 'Mia Manager', email: 'mia@shop.example.com' })
    ).body.data;
    const t = await template({
      name: 'Refund {{order_id}}',
      mode: 'approval',
      gate_config: { message: 'Refund {{order_id}}?', recipients: ['{{approver}}'] },
      placeholders: [
        { name: 'order_id', required: true },
        { name: 'approver', default: 'mia@shop.example.com' },
      ],
    });
    for (const approver of ['+15005550006', 'attacker@evil.example.net']) {
      const res = await trigger(t.trigger_url, { order_id: 'A-1', approver });
      expect(res.status, approver).toBe(422);
      expect(res.body.errors).toHaveProperty(['gate_config.recipients.0']);
    }
    for (const approver of [undefined, contact.id]) {
      const res = await trigger(t.trigger_url, { order_id: 'A-2', ...(approver && { approver }) });
      expect(res.status, String(approver)).toBe(201);
      const action = (await call('GET', `/v1/actions/${res.body.data.id}`)).body.data;
      expect(JSON.stringify(action.recipients ?? action.gate)).toContain('mia@shop.example.com');
    }
    // Chains: a recipient from {{input.*}} or a step response resolves only to the directory; a bare contact id
    // in a literal recipient is the contact (CH16).
    const free = await call('POST', '/v1/chains', {
      name: 'free-recipient',
      input: { manager: 'attacker@evil.example.net' },
      steps: [
        { name: 'ask', type: 'approval', gate: { message: 'ok?', recipients: ['{{input.manager}}'] } },
        { name: 'after', type: 'wait', delay: '1s' },
      ],
    });
    expect(free.status).toBe(201);
    const failed = await eventually(async () => {
      const c = (await call('GET', `/v1/chains/${free.body.data.id}`)).body.data;
      return c.status === 'failed' ? c : null;
    });
    expect(failed.steps[0].error).toContain('contacts or team members');
    const byId = await call('POST', '/v1/chains', {
      name: 'contact-id',
      steps: [
        { name: 'ask', type: 'approval', gate: { message: 'ok?', recipients: [contact.id] } },
        { name: 'after', type: 'wait', delay: '1s' },
      ],
    });
    expect(byId.status).toBe(201);
    const running = await eventually(async () => {
      const c = (await call('GET', `/v1/chains/${byId.body.data.id}`)).body.data;
      return c.steps[0].action_id ? c : null;
    });
    expect(running.steps[0].status).toBe('running');
    const unknown = await call('POST', '/v1/chains', {
      name: 'unknown-id',
      steps: [
        {
          name: 'ask',
          type: 'approval',
          gate: { message: 'ok?', recipients: ['a@example.com', '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11'] },
        },
        { name: 'after', type: 'wait', delay: '1s' },
      ],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toHaveProperty(['steps.0.gate.recipients.1']);
  });

  it('per-template caps (shown in the view and the X-RateLimit headers), a schedule horizon, chains count steps', async () => {
    const t = await template({
      name: 'Capped',
      mode: 'webhook',
      request_config: { url: `${rx.url}/capped` },
      trigger_limit_per_hour: 3,
    });
    const view = (await call('GET', `/v1/templates/${t.id}`)).body.data;
    expect(view).toMatchObject({
      trigger_limit_per_hour: 3,
      trigger_limit_per_day: 100,
      max_schedule_days: 30,
    });
    const far = await trigger(t.trigger_url, { schedule: { wait: '40d' } });
    expect(far.status).toBe(422);
    expect(Object.keys(far.body.errors).join(' ')).toContain('schedule');
    // Only accepted triggers spend the cap: the refused one above is given back.
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await trigger(t.trigger_url, { schedule: { wait: '10d' } }));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('3');
    expect(answers[0]!.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(answers[2]!.headers.get('x-ratelimit-remaining')).toBe('0');
    const over = await trigger(t.trigger_url, {});
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBeTruthy();
    // A chain template counts each chain's steps: 2 steps against a cap of 3 leaves room for one chain.
    const chain = await template({
      name: 'Capped chain',
      type: 'chain',
      trigger_limit_per_day: 3,
      chain_steps: [
        { name: 'a', type: 'wait', delay: '1s' },
        { name: 'b', type: 'wait', delay: '1s' },
      ],
    });
    expect((await trigger(chain.trigger_url, {})).status).toBe(201);
    expect((await trigger(chain.trigger_url, {})).status).toBe(429);
  });

  it("triggers do not spend the owner's own destination threshold", async () => {
    const host = 'victim.nm2-probe.invalid';
    const t = await template({
      name: 'Victim',
      mode: 'webhook',
      request_config: { url: `https://${host}/hook` },
      trigger_limit_per_hour: 50,
      trigger_limit_per_day: 50,
    });
    const statuses = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await trigger(t.trigger_url, { schedule: { wait: '10d' } })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(201));
    expect(statuses[10]).toBe(422);
    const own = await call('POST', '/v1/actions', {
      name: 'own',
      schedule: { wait: '10d' },
      request: { url: `https://${host}/owner-own-call` },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
  });

  it("a step answering JSON nested 5,000 deep does not stop the chain, its callbacks or other chains' waits", async () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    rx.on('/deep', { status: 200, headers: { 'content-type': 'application/json' }, body: deep });
    const bad = await call('POST', '/v1/chains', {
      name: 'deep-responder',
      callback_url: `${rx.url}/deep-events`,
      steps: [
        { name: 'deep', type: 'http_call', url: `${rx.url}/deep` },
        { name: 'after', type: 'wait', delay: '1s' },
      ],
    });
    expect(bad.status).toBe(201);
    await rx.waitFor('/deep');
    const other = await call('POST', '/v1/chains', {
      name: 'other-tenant-waits',
      steps: [
        { name: 'w1', type: 'wait', delay: '1s' },
        { name: 'w2', type: 'wait', delay: '1s' },
      ],
    });
    expect(other.status).toBe(201);
    const done = async (id: string) =>
      eventually(async () => {
        const c = (await call('GET', `/v1/chains/${id}`)).body.data;
        return c.status === 'completed' ? c : null;
      }, 20_000);
    await done(other.body.data.id);
    const deepChain = await done(bad.body.data.id);
    // Deeper than the bound: kept as text, as a body that is not JSON would be.
    expect(typeof deepChain.context.steps['0'].response).toBe('string');
    const events = await rx.waitFor('/deep-events', 2);
    expect(
      events.some((e) => e.json?.event === 'chain.step.completed' || e.body.includes('chain.step.completed')),
    ).toBe(true);
  });

  it("JSON answers are no-store and nosniff; an over-long path parameter gets the API's own answer", async () => {
    const created = await call('POST', '/v1/templates', {
      name: 'Headers',
      mode: 'webhook',
      request_config: { url: `${rx.url}/h` },
    });
    for (const res of [created, await call('GET', '/v1/templates')]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const long = await call('GET', `/v1/domains/${'a'.repeat(300)}`);
    expect([404, 422]).toContain(long.status);
    expect(long.body.message).toBeTruthy();
    expect(JSON.stringify(long.body)).not.toContain('FST_ERR');
    expect(long.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('DM6: DELETE /domains/{domain} removes the domain from the list; its counts still hold the threshold', async () => {
    const host = 'removed.dm6-probe.invalid';
    const create = () =>
      call('POST', '/v1/actions', {
        name: 'd',
        schedule: { wait: '10d' },
        request: { url: `https://${host}/x` },
      });
    for (let i = 0; i < 10; i++) expect((await create()).status).toBe(201);
    expect((await call('GET', '/v1/domains')).body.data.map((d: { domain: string }) => d.domain)).toContain(
      host,
    );
    expect((await call('DELETE', `/v1/domains/${host}`)).status).toBe(204);
    expect(
      (await call('GET', '/v1/domains')).body.data.map((d: { domain: string }) => d.domain),
    ).not.toContain(host);
    expect((await call('GET', `/v1/domains/${host}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/domains/${host}`)).status).toBe(404);
    expect((await create()).status).toBe(422);
  });

  it('a public IP literal counts by its address; subdomains count toward their registrable domain', async () => {
    const create = (url: string) =>
      call('POST', '/v1/actions', { name: 'n-m4', schedule: { wait: '10d' }, request: { url } });
    const ip: number[] = [];
    for (let i = 0; i < 11; i++) ip.push((await create('https://1.1.1.1/hook')).status);
    expect(ip.slice(0, 10)).toEqual(Array(10).fill(201));
    expect(ip[10]).toBe(422);
    const subs: number[] = [];
    for (let i = 0; i < 11; i++) subs.push((await create(`https://s${i}.victim-nm4.co.uk/hook`)).status);
    expect(subs.slice(0, 10)).toEqual(Array(10).fill(201));
    expect(subs[10]).toBe(422);
    // Loopback and private literals (allowed only in development) stay outside the thresholds.
    for (let i = 0; i < 11; i++) expect((await create(`${rx.url}/loopback`)).status).toBe(201);
  });

  it("a chain step's action cannot be retried on its own (409 naming the chain); a manual retry counts as a send", async () => {
    rx.on('/step-fails', { status: 400, body: 'no' });
    const chain = await call('POST', '/v1/chains', {
      name: 'retry-step',
      steps: [
        { name: 'fails', type: 'http_call', url: `${rx.url}/step-fails`, max_attempts: 1 },
        { name: 'after', type: 'wait', delay: '1s' },
      ],
    });
    expect(chain.status).toBe(201);
    const failed = await eventually(async () => {
      const c = (await call('GET', `/v1/chains/${chain.body.data.id}`)).body.data;
      return c.status === 'failed' ? c : null;
    });
    const retried = await call('POST', `/v1/actions/${failed.steps[0].action_id}/retry`);
    expect(retried.status).toBe(409);
    expect(retried.body.message).toContain(chain.body.data.id);

    const url = 'https://retry.nm4-probe.invalid/x';
    const first = await call('POST', '/v1/actions', {
      name: 'r',
      schedule: { wait: '1s' },
      max_attempts: 1,
      request: { url },
    });
    expect(first.status).toBe(201);
    await eventually(
      async () => (await call('GET', `/v1/actions/${first.body.data.id}`)).body.data.status === 'failed',
    );
    for (let i = 0; i < 9; i++) {
      expect(
        (await call('POST', '/v1/actions', { name: 'r', schedule: { wait: '10d' }, request: { url } }))
          .status,
      ).toBe(201);
    }
    const over = await call('POST', `/v1/actions/${first.body.data.id}/retry`);
    expect(over.status).toBe(422);
    expect(JSON.stringify(over.body)).toContain('not verified');
  });

  it('PUT /templates/{id} clears an optional field with null, and replaces request_config whole', async () => {
    const t = await template({
      name: 'Clearable',
      description: 'to clear',
      mode: 'webhook',
      callback_url: `${rx.url}/cb`,
      max_attempts: 3,
      request_config: { url: `${rx.url}/a`, headers: { 'X-A': '1' } },
    });
    const res = await call('PUT', `/v1/templates/${t.id}`, {
      description: null,
      callback_url: null,
      max_attempts: null,
      request_config: { url: `${rx.url}/b` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // TP16: a cleared field shows the default a trigger applies, not null.
    expect(res.body.data).toMatchObject({
      description: null,
      callback_url: null,
      max_attempts: 5,
      retry_strategy: 'exponential',
    });
    expect(res.body.data.request_config).toMatchObject({ url: `${rx.url}/b`, headers: {} });
    const refused = await call('PUT', `/v1/templates/${t.id}`, { request_config: null });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toHaveProperty('request_config');
  });

  it('the action view embeds the newest 20 attempts; GET /attempts pages through all of them (SDK, CLI)', async () => {
    const created = await call('POST', '/v1/actions', {
      name: 'long series',
      schedule: { wait: '10d' },
      request: { url: `${rx.url}/never` },
      recurrence: { frequency: 5, unit: 'm', end_type: 'never' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    // 45 attempts of a long-lived series, one a minute (what a month of occurrences looks like, in small), with
    // time-ordered ids in the order they were recorded, as the engine writes them.
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      await sql.query(
        `insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms,
           status_code, outcome, response_truncated)
         select (lpad(to_hex((extract(epoch from now()) * 1000)::bigint + n), 12, '0') || '7' ||
                 substr(md5(n::text), 1, 3) || '8' || substr(md5(n::text), 4, 15))::uuid,
                $1, 1, t, t, 0, 5, 200, 'success', false
           from generate_series(now() - interval '44 minutes', now(), interval '1 minute') with ordinality as s(t, n)`,
        [id],
      );
    } finally {
      await sql.end();
    }
    const view = (await call('GET', `/v1/actions/${id}`)).body.data;
    expect(view.delivery_attempts).toHaveLength(20);
    expect(view.delivery_attempts_more).toBe(true);
    const shown = view.delivery_attempts.map((a: { started_at: string }) => a.started_at);
    expect(shown).toEqual([...shown].sort());
    const pages = [];
    let before: string | null = null;
    do {
      const query: string = before ? `?limit=20&before=${before}` : '?limit=20';
      const page = await call('GET', `/v1/actions/${id}/attempts${query}`);
      expect(page.status).toBe(200);
      pages.push(page.body.data);
      before = page.body.meta.next_before;
    } while (before);
    expect(pages.map((p) => p.length)).toEqual([20, 20, 5]);
    const all = pages.flat().map((a: { started_at: string }) => a.started_at);
    expect(new Set(pages.flat().map((a: { id: string }) => a.id)).size).toBe(45);
    expect(all).toEqual([...all].sort().reverse());
    // The newest page is the view's attempts, newest first.
    expect(all.slice(0, 20)).toEqual([...shown].reverse());
    const bad = await call('GET', `/v1/actions/${id}/attempts?before=not-a-cursor`);
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('before');
    const other = JSON.parse(
      (
        await runCli(
          ['accounts', 'create', '--name', 'n-l2-other', '--plan', 'business', '--json'],
          server.env,
        )
      ).stdout,
    ).api_key as string;
    expect((await api(server, other, 'GET', `/v1/actions/${id}/attempts`)).status).toBe(404);
    // The CLI (through the SDK's iterator) walks every page.
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const cli = await runCli(['actions', 'attempts', id, '--all', '--json'], env);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).data).toHaveLength(45);
    const first = await runCli(['actions', 'attempts', id, '--limit', '10'], env);
    expect(first.stdout).toContain('older attempts: --before ');
  });

  it('the team-member limit holds under racing creates', async () => {
    const quota = (await call('GET', '/v1/quota')).body.data.team_members as { used: number; limit: number };
    for (let i = quota.used; i < quota.limit - 1; i++) {
      expect(
        (await call('POST', '/v1/team-members', { name: `m${i}`, email: `m${i}@example.com` })).status,
      ).toBe(201);
    }
    const racing = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        call('POST', '/v1/team-members', { name: `r${i}`, email: `r${i}@example.com` }),
      ),
    );
    expect(racing.filter((r) => r.status === 201)).toHaveLength(1);
    expect((await call('GET', '/v1/quota')).body.data.team_members.used).toBe(quota.limit);
  });

  it('pending domains are capped per account; a failed file fetch says nothing about why', async () => {
    const listed = (await call('GET', '/v1/domains')).body.data as { verified: boolean; status?: string }[];
    const pending = listed.filter((d) => !d.verified && d.status === 'pending').length;
    const statuses: number[] = [];
    for (let i = 0; i < 21 - pending; i++) {
      statuses.push((await call('POST', `/v1/domains/p${i}.nl3-probe.invalid/verify`)).status);
    }
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(422);
    const checked = await call('POST', '/v1/domains/p0.nl3-probe.invalid/check');
    expect(checked.status).toBe(200);
    expect(checked.body.data.errors.file).toBe(
      'https://p0.nl3-probe.invalid/.well-known/sched-verify.txt could not be fetched',
    );
  });

  describe('a value never rewrites the URL the owner wrote', () => {
    it('path traversal: the value is one encoded segment, never ../ or a new query; a bare .. is a 422', async () => {
      const t = await template({
        name: 'Order',
        mode: 'webhook',
        request_config: {
          url: `${rx.url}/orders/{{order_id}}`,
          headers: { Authorization: 'Bearer downstream-SECRET-123' },
        },
        placeholders: [{ name: 'order_id', required: true }],
      });
      const res = await trigger(t.trigger_url, {
        order_id: '../../admin/users/42/delete?x=',
        schedule: { wait: '1s' },
      });
      expect(res.status).toBe(201);
      const [got] = await rx.waitFor('/orders/..%2F..%2Fadmin%2Fusers%2F42%2Fdelete%3Fx%3D');
      expect(got!.url).toBe('/orders/..%2F..%2Fadmin%2Fusers%2F42%2Fdelete%3Fx%3D');
      expect(rx.requests.some((r) => r.path.startsWith('/admin'))).toBe(false);
      for (const dots of ['..', '.', '%2e%2E']) {
        const refused = await trigger(t.trigger_url, { order_id: dots });
        if (dots === '%2e%2E') {
          // A percent sign is itself encoded: the segment reads %252e%252E, not a dot segment.
          expect(refused.status).toBe(201);
          continue;
        }
        expect(refused.status).toBe(422);
        expect(Object.keys(refused.body.errors).join(' ')).toContain('url');
      }
    });

    it('query values: & = # in a value stay inside the one parameter', async () => {
      const t = await template({
        name: 'Query',
        mode: 'webhook',
        request_config: { url: `${rx.url}/lookup?id={{order_id}}&fixed=1` },
        placeholders: [{ name: 'order_id', required: true }],
      });
      expect((await trigger(t.trigger_url, { order_id: '1&admin=true#frag' })).status).toBe(201);
      const [got] = await rx.waitFor('/lookup');
      expect(got!.url).toBe('/lookup?id=1%26admin%3Dtrue%23frag&fixed=1');
    });

    it('host injection and {{path}} after an authority: refused at save time without allowed_origins', async () => {
      for (const url of [
        'https://{{tenant}}.hooks.example.com/orders?id={{order_id}}',
        `${rx.url}{{path}}`,
        '{{target}}',
      ]) {
        const res = await call('POST', '/v1/templates', {
          name: 'Host',
          mode: 'webhook',
          request_config: { url },
          placeholders: [{ name: 'tenant' }, { name: 'order_id' }, { name: 'path' }, { name: 'target' }],
        });
        expect(res.status, url).toBe(422);
        expect(res.body.errors['request_config.url'][0]).toContain('allowed_origins');
      }
    });

    it('an origin expression with allowed_origins: an allowed origin is sent, any other is a 422', async () => {
      const port = new URL(rx.url).port;
      const t = await template({
        name: 'Tenant',
        mode: 'webhook',
        request_config: { url: `http://{{host}}:${port}/tenant/{{id}}` },
        allowed_origins: [rx.url],
        placeholders: [
          { name: 'host', required: true },
          { name: 'id', default: 'x' },
        ],
      });
      expect((await trigger(t.trigger_url, { host: '127.0.0.1', id: 'a/b' })).status).toBe(201);
      const [got] = await rx.waitFor('/tenant/a%2Fb');
      expect(got!.url).toBe('/tenant/a%2Fb');
      for (const host of [
        'evil.example.net/x?',
        'localhost',
        'user@127.0.0.1',
        '127.0.0.1/tenant/../admin#',
      ]) {
        const res = await trigger(t.trigger_url, { host });
        expect(res.status, host).toBe(422);
        expect(Object.keys(res.body.errors).join(' ')).toContain('url');
      }
      const bad = await call('POST', '/v1/templates', {
        name: 'x',
        mode: 'webhook',
        request_config: { url: 'https://{{host}}/x' },
        allowed_origins: ['https://example.com/path'],
        placeholders: [{ name: 'host' }],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toHaveProperty(['allowed_origins.0']);
    });

    it('a chain step responder cannot move the next step to another path', async () => {
      rx.on('/step0', {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"next":"../../admin?x=1"}',
      });
      const res = await call('POST', '/v1/chains', {
        name: 'responder',
        steps: [
          { name: 'ask', type: 'http_call', url: `${rx.url}/step0` },
          { name: 'use', type: 'http_call', url: `${rx.url}/items/{{steps.0.response.next}}` },
        ],
      });
      expect(res.status).toBe(201);
      const [got] = await rx.waitFor('/items/..%2F..%2Fadmin%3Fx%3D1');
      expect(got!.url).toBe('/items/..%2F..%2Fadmin%3Fx%3D1');
      const refused = await call('POST', '/v1/chains', {
        name: 'responder-origin',
        steps: [
          { name: 'ask', type: 'http_call', url: `${rx.url}/step0` },
          { name: 'use', type: 'http_call', url: 'https://{{steps.0.response.next}}/x' },
        ],
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors['steps.1.url'][0]).toContain('allowed_origins');
    });

    it('a header value never adds a header or a line', async () => {
      const t = await template({
        name: 'Header',
        mode: 'webhook',
        request_config: { url: `${rx.url}/header`, headers: { 'X-Note': 'note {{note}}' } },
        placeholders: [{ name: 'note', required: true }],
      });
      const res = await trigger(t.trigger_url, { note: 'a\r\nX-Admin: true' });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).join(' ')).toContain('X-Note');
    });
  });
});
