import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, SchedApiError, verifyWebhook } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { linkIn, startSmtpServer } from '../support/peers.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// Chains end to end: a real server, real loopback receivers and a real SMTP server. SCHED_TIME_SCALE=3600 makes
// an hour of retry backoff or gate timeout last a second; it must not shorten a delay step.
describe('chains', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let rx: Receiver;
  let key: string;
  let env: Record<string, string>;
  const create = (body: Record<string, unknown>) => api(server, key, 'POST', '/v1/chains', body);
  const get = async (id: string) => (await api(server, key, 'GET', `/v1/chains/${id}`)).body.data;
  const until = (id: string, status: string, timeoutMs = 15_000) =>
    eventually(async () => {
      const c = await get(id);
      return c.status === status ? c : null;
    }, timeoutMs);
  const answer = (link: string, decision: string) =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision }),
    });
  /** A link mailed by an earlier server process points at its port; the token is what matters. */
  const onCurrentServer = (link: string) => `${server.url}${new URL(link).pathname}`;

  beforeAll(async () => {
    db = await createTestDatabase('chains');
    smtp = await startSmtpServer();
    rx = await startReceiver();
    env = {
      SCHED_TIME_SCALE: '3600',
      SCHED_RATE_LIMIT_FACTOR: '100',
      SCHED_SMTP_URL: smtp.url,
      SCHED_EMAIL_FROM: 'sched <approvals@example.com>',
    };
    server = await startServer({ databaseUrl: db.url, env });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await rx?.close();
    await db?.drop();
  });

  it('http -> gate -> http: the gate and the last call read step 0 response; confirmed by the mailed link', async () => {
    rx.on('/orders', {
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: 'A-17', lines: [{ sku: 'X1', qty: 2 }] }),
    });
    // A recipient chosen by a value must be in the account's directory.
    await api(server, key, 'POST', '/v1/contacts', { name: 'Boss', email: 'boss@example.com' });
    const res = await create({
      name: 'Order for Ann',
      input: { customer: 'ann@example.com', sku: 'X1', qty: 2, manager: 'boss@example.com' },
      callback_url: `${rx.url}/chain-events`,
      webhook_secret: 'chain-callback-secret-0123',
      steps: [
        {
          name: 'create order',
          type: 'http_call',
          url: `${rx.url}/orders`,
          body: { customer: '{{input.customer}}', sku: '{{input.sku}}', qty: '{{input.qty}}' },
          webhook_secret: 'chain-secret-0123456789',
        },
        {
          name: 'manager approval',
          type: 'gated',
          gate: {
            message: 'Ship order {{steps.0.response.order_id}} ({{input.qty}} x {{input.sku}})?',
            recipients: ['{{input.manager}}'],
          },
        },
        {
          name: 'fulfil',
          type: 'webhook',
          url: `${rx.url}/fulfil/{{steps.0.response.order_id}}`,
          headers: { 'X-Approved-By': '{{input.manager}}' },
          body: { order_id: '{{steps.0.response.order_id}}', lines: '{{steps.0.response.lines}}' },
          condition: '{{steps.1.status}} == confirmed',
        },
      ],
    });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toMatchObject({
      name: 'Order for Ann',
      status: 'running',
      current_step: 0,
      error_handling: 'fail_chain',
      input: { customer: 'ann@example.com', qty: 2 },
    });
    expect(created.steps.map((s: { type: string }) => s.type)).toEqual(['webhook', 'approval', 'webhook']);
    expect(created.steps[0]).toMatchObject({ status: 'running', outcome: null, completed_at: null });
    expect(created.steps[1]).toMatchObject({ status: 'pending', started_at: null });

    const [order] = await rx.waitFor('/orders');
    // Interpolated at the start of the step; a whole-value expression keeps its JSON type.
    expect(order!.json).toEqual({ customer: 'ann@example.com', sku: 'X1', qty: 2 });
    expect(order!.headers['webhook-id']).toBeTypeOf('string');

    const [mail] = await smtp.waitFor('boss@example.com');
    expect(mail!.text).toContain('Ship order A-17 (2 x X1)?');
    const running = await get(created.id);
    expect(running.current_step).toBe(1);
    // The step's internal action is readable by id.
    const gate = await api(server, key, 'GET', `/v1/actions/${running.steps[1].action_id}`);
    expect(gate.body.data).toMatchObject({ mode: 'approval', name: 'Order for Ann / manager approval' });
    expect(running.steps[1].status).toBe('running');
    expect(running.context.steps['0']).toEqual({
      status: 'executed',
      response: { order_id: 'A-17', lines: [{ sku: 'X1', qty: 2 }] },
    });
    // The step actions are internal: not listed among the account's actions.
    const listed = await api(server, key, 'GET', '/v1/actions?per_page=100');
    expect(listed.body.data.filter((a: { name: string }) => a.name.startsWith('Order for Ann'))).toEqual([]);

    expect((await answer(linkIn(mail!.text), 'confirm')).status).toBe(200);
    const [fulfil] = await rx.waitFor('/fulfil/A-17');
    expect(fulfil!.json).toEqual({ order_id: 'A-17', lines: [{ sku: 'X1', qty: 2 }] });
    expect(fulfil!.headers['x-approved-by']).toBe('boss@example.com');

    const done = await until(created.id, 'completed');
    expect(done.current_step).toBe(2);
    expect(done.completed_at).toBeTypeOf('string');
    expect(done.steps.map((s: { status: string }) => s.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(done.context.steps['1']).toEqual({ status: 'confirmed', response: null });
    expect(done.context.steps['2'].status).toBe('executed');
    for (const s of done.steps) {
      expect(Date.parse(s.completed_at)).toBeGreaterThanOrEqual(Date.parse(s.started_at));
    }

    // Callbacks: one chain.step.completed per step, then chain.completed; signed with the chain's secret.
    const events = await rx.waitFor('/chain-events', 4);
    for (const e of events) {
      expect(
        verifyWebhook({ secret: 'chain-callback-secret-0123', headers: e.headers, body: e.body }).ok,
      ).toBe(true);
      expect(e.json).toMatchObject({ chain_id: created.id, chain_name: 'Order for Ann' });
      expect(e.headers['webhook-id']).toBe(e.json.id);
    }
    // Each event is its own delivery job: they may arrive in any order.
    const byStep = (i: number) =>
      events.find((e) => e.json.event === 'chain.step.completed' && e.json.payload.step.index === i)!.json;
    expect(events.map((e) => e.json.event).sort()).toEqual([
      'chain.completed',
      'chain.step.completed',
      'chain.step.completed',
      'chain.step.completed',
    ]);
    expect(byStep(0).payload).toMatchObject({
      chain_status: 'running',
      step: { index: 0, name: 'create order', type: 'webhook', status: 'completed', outcome: 'executed' },
      response: { order_id: 'A-17' },
    });
    expect(byStep(1).payload.step).toMatchObject({ index: 1, outcome: 'confirmed' });
    const completed = events.find((e) => e.json.event === 'chain.completed')!.json;
    expect(completed.payload.status).toBe('completed');
    expect(completed.payload.steps).toHaveLength(3);

    const page = await api(server, key, 'GET', '/v1/chains?status=completed&per_page=1');
    expect(page.status).toBe(200);
    expect(page.body.data[0]).toEqual({
      id: created.id,
      name: 'Order for Ann',
      status: 'completed',
      current_step: 2,
      created_at: created.created_at,
    });
    expect(page.body.meta).toMatchObject({ current_page: 1, per_page: 1 });
    const none = await api(server, key, 'GET', '/v1/chains?status=cancelled');
    expect(none.body.data.map((c: { id: string }) => c.id)).not.toContain(created.id);
    expect((await api(server, key, 'DELETE', `/v1/chains/${created.id}`)).status).toBe(409);
  }, 60_000);

  it('a false condition skips; skip_step continues past an exhausted 500 and a later condition reads its status', async () => {
    rx.on('/boom', { status: 500, body: 'down' });
    const res = await create({
      name: 'skip-step',
      error_handling: 'skip_step',
      steps: [
        {
          name: 'flaky',
          type: 'http_call',
          url: `${rx.url}/boom`,
          max_attempts: 2,
          webhook_secret: 'flaky-secret-0123456789',
        },
        {
          name: 'only if it worked',
          type: 'http_call',
          url: `${rx.url}/worked`,
          condition: '{{steps.0.status}} == executed',
        },
        {
          name: 'only if it failed',
          type: 'http_call',
          url: `${rx.url}/failed-path`,
          condition: "{{steps.0.status}} == 'failed'",
        },
      ],
    });
    expect(res.status).toBe(201);
    const done = await until(res.body.data.id, 'completed', 30_000);
    const attempts = rx.to('/boom');
    expect(attempts).toHaveLength(2);
    // At-least-once with a stable idempotency header: the retry carries the same webhook-id.
    expect(attempts[0]!.headers['webhook-id']).toBeTypeOf('string');
    expect(attempts[1]!.headers['webhook-id']).toBe(attempts[0]!.headers['webhook-id']);
    expect(done.steps[0]).toMatchObject({ status: 'skipped', outcome: 'failed', error: 'HTTP 500' });
    expect(done.steps[1]).toMatchObject({ status: 'skipped', outcome: 'skipped', error: null });
    expect(done.steps[2]).toMatchObject({ status: 'completed', outcome: 'executed' });
    expect(done.context.steps['0']).toEqual({ status: 'failed', response: null });
    expect(rx.to('/worked')).toHaveLength(0);
    expect(rx.to('/failed-path')).toHaveLength(1);
  }, 60_000);

  it('fail_chain stops at the first failed step; later steps become cancelled', async () => {
    rx.on('/reject', { status: 400, body: 'no' });
    const res = await create({
      name: 'fail-chain',
      callback_url: `${rx.url}/fail-events`,
      steps: [
        { name: 'rejected', type: 'http_call', url: `${rx.url}/reject` },
        { name: 'never', type: 'http_call', url: `${rx.url}/after-reject` },
        { name: 'wait', type: 'delay', delay: '1m' },
      ],
    });
    const failed = await until(res.body.data.id, 'failed');
    expect(failed.current_step).toBe(0);
    expect(failed.steps.map((s: { status: string }) => s.status)).toEqual([
      'failed',
      'cancelled',
      'cancelled',
    ]);
    expect(failed.steps[0]).toMatchObject({ outcome: 'failed', error: 'HTTP 400' });
    expect(rx.to('/after-reject')).toHaveLength(0);
    const events = await rx.waitFor('/fail-events', 2);
    expect(events.map((e) => e.json.event).sort()).toEqual(['chain.failed', 'chain.step.completed']);
    expect(events.find((e) => e.json.event === 'chain.failed')!.json.payload).toMatchObject({
      status: 'failed',
      failed_step: { index: 0, status: 'failed', outcome: 'failed', error: 'HTTP 400' },
    });
  });

  it('an expression without a value fails the step with an error naming it', async () => {
    rx.on('/plain', { status: 200, body: 'not json' });
    const res = await create({
      name: 'missing-path',
      steps: [
        { name: 'plain', type: 'http_call', url: `${rx.url}/plain` },
        { name: 'reads', type: 'http_call', url: `${rx.url}/reads`, body: { id: '{{steps.0.response.id}}' } },
      ],
    });
    const failed = await until(res.body.data.id, 'failed');
    expect(failed.context.steps['0'].response).toBe('not json');
    expect(failed.steps[1].status).toBe('failed');
    expect(failed.steps[1].error).toContain('body.id');
    expect(failed.steps[1].error).toContain('{{steps.0.response.id}}');
  });

  it('a gate that times out: approve continues (confirmed); expire and cancel are declined, a failure', async () => {
    const gateStep = (onTimeout: string, to: string) => ({
      name: 'ask',
      type: 'gated',
      gate: { message: 'Anyone?', recipients: [to], timeout: '1h', on_timeout: onTimeout },
    });
    const approved = await create({
      name: 'timeout-approve',
      steps: [
        gateStep('approve', 'approve@example.com'),
        { name: 'go', type: 'http_call', url: `${rx.url}/approved` },
      ],
    });
    const expired = await create({
      name: 'timeout-expire',
      steps: [
        gateStep('expire', 'expire@example.com'),
        { name: 'go', type: 'http_call', url: `${rx.url}/expired` },
      ],
    });
    const cancelled = await create({
      name: 'timeout-cancel',
      error_handling: 'skip_step',
      steps: [
        gateStep('cancel', 'tcancel@example.com'),
        { name: 'go', type: 'http_call', url: `${rx.url}/tcancel` },
      ],
    });
    const done = await until(approved.body.data.id, 'completed');
    expect(done.steps[0]).toMatchObject({ status: 'completed', outcome: 'confirmed' });
    const skipped = await until(cancelled.body.data.id, 'completed');
    expect(skipped.steps[0]).toMatchObject({ status: 'skipped', outcome: 'declined' });
    expect(skipped.steps[0].error).toContain('on_timeout: cancel');
    expect(rx.to('/approved')).toHaveLength(1);
    const failed = await until(expired.body.data.id, 'failed');
    expect(failed.steps[0]).toMatchObject({ status: 'failed', outcome: 'declined' });
    expect(failed.steps[0].error).toContain('on_timeout: expire');
    expect(failed.steps[1].status).toBe('cancelled');
    expect(rx.to('/expired')).toHaveLength(0);
  });

  it('a URL produced by interpolation is checked when the step starts', async () => {
    const res = await create({
      name: 'refused-url',
      input: { target: 'ftp://files.example.com/drop' },
      error_handling: 'skip_step',
      steps: [
        { name: 'send', type: 'http_call', url: '{{input.target}}' },
        {
          name: 'next',
          type: 'http_call',
          url: `${rx.url}/after-refused`,
          condition: '{{steps.0.status}} == failed',
        },
      ],
    });
    expect(res.status).toBe(201);
    const done = await until(res.body.data.id, 'completed');
    expect(done.steps[0]).toMatchObject({ status: 'skipped', outcome: 'failed', action_id: null });
    expect(done.steps[0].error).toMatch(/^request\.url: must use https/);
    expect(rx.to('/after-refused')).toHaveLength(1);
  });

  it('cancel while a gate waits: the link answers 410 and later steps never run', async () => {
    const res = await create({
      name: 'cancel-gate',
      callback_url: `${rx.url}/cancel-events`,
      steps: [
        { name: 'ask', type: 'approval', gate: { message: 'Go on?', recipients: ['cancel@example.com'] } },
        { name: 'after', type: 'http_call', url: `${rx.url}/after-cancel` },
      ],
    });
    const [mail] = await smtp.waitFor('cancel@example.com');
    const link = linkIn(mail!.text);
    await eventually(async () => (await fetch(link)).status === 200);
    const cancelled = await api(server, key, 'DELETE', `/v1/chains/${res.body.data.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ data: { id: res.body.data.id, status: 'cancelled' } });
    expect((await answer(link, 'confirm')).status).toBe(410);
    const after = await get(res.body.data.id);
    expect(after.status).toBe('cancelled');
    expect(after.steps.map((s: { status: string }) => s.status)).toEqual(['cancelled', 'cancelled']);
    expect((await api(server, key, 'DELETE', `/v1/chains/${res.body.data.id}`)).status).toBe(409);
    expect((await api(server, key, 'DELETE', '/v1/chains/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
    // No step is left running (both cancelled above), so the engine, which advances only running steps, has nothing
    // to take up: when the cancellation's callback has come, the later step has still not run.
    const [event] = await rx.waitFor('/cancel-events');
    expect((await get(res.body.data.id)).status).toBe('cancelled');
    expect(rx.to('/after-cancel')).toHaveLength(0);
    expect(event!.json).toMatchObject({
      event: 'chain.cancelled',
      payload: {
        status: 'cancelled',
        current_step: 0,
        steps: [{ status: 'cancelled' }, { status: 'cancelled' }],
      },
    });
    expect(rx.to('/cancel-events')).toHaveLength(1);
  });

  it('a 3s delay waits about 3 s even under SCHED_TIME_SCALE', async () => {
    const res = await create({
      name: 'delay',
      steps: [
        { name: 'before', type: 'http_call', url: `${rx.url}/before-delay` },
        { name: 'pause', type: 'wait', wait: '3s' },
        { name: 'after', type: 'http_call', url: `${rx.url}/after-delay` },
      ],
    });
    const [before] = await rx.waitFor('/before-delay');
    const [after] = await rx.waitFor('/after-delay', 1, 15_000);
    const waited = after!.at - before!.at;
    expect(waited).toBeGreaterThanOrEqual(3000);
    expect(waited).toBeLessThan(5000);
    const done = await until(res.body.data.id, 'completed');
    expect(done.steps[1]).toMatchObject({ type: 'wait', status: 'completed', outcome: 'executed' });
  });

  it('survives SIGKILL mid-delay and mid-gate without running a completed step again', async () => {
    const res = await create({
      name: 'crash',
      steps: [
        { name: 'first', type: 'http_call', url: `${rx.url}/crash-first` },
        { name: 'pause', type: 'delay', delay: '2s' },
        { name: 'ask', type: 'gated', gate: { message: 'Still there?', recipients: ['crash@example.com'] } },
        { name: 'last', type: 'http_call', url: `${rx.url}/crash-last` },
      ],
    });
    const id = res.body.data.id;
    await rx.waitFor('/crash-first');
    await eventually(async () => (await get(id)).steps[1].status === 'running');
    await server.kill();
    server = await startServer({ databaseUrl: db.url, env, dataDir: server.dataDir });

    const [mail] = await smtp.waitFor('crash@example.com', 1, 20_000);
    const gateAction = (await get(id)).steps[2].action_id as string;
    // Killed while the gate waits for an answer (not mid-send, which is the approval engine's own crash case).
    await eventually(
      async () =>
        (await api(server, key, 'GET', `/v1/actions/${gateAction}`)).body.data.status === 'awaiting_response',
    );
    await server.kill();
    server = await startServer({ databaseUrl: db.url, env, dataDir: server.dataDir });

    expect((await answer(onCurrentServer(linkIn(mail!.text)), 'confirm')).status).toBe(200);
    await rx.waitFor('/crash-last', 1, 20_000);
    const done = await until(id, 'completed');
    expect(done.steps.map((s: { status: string }) => s.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    expect(rx.to('/crash-first')).toHaveLength(1);
    expect(rx.to('/crash-last')).toHaveLength(1);
    expect(smtp.mails.filter((m) => m.to.includes('crash@example.com'))).toHaveLength(1);
  }, 90_000);

  it('HTTP steps count against the destination threshold with actions: the 11th to one host fails its step', async () => {
    // An unverified host name of its own (a `*.localhost` name, allowed by this test server); only creates count.
    const url = `http://threshold-steps.localhost:${new URL(rx.url).port}/threshold`;
    for (let i = 1; i <= 5; i++) {
      const action = await api(server, key, 'POST', '/v1/actions', {
        schedule: { wait: '2d' },
        request: { url },
      });
      expect(action.status, `action ${i}`).toBe(201);
    }
    // A chain needs two steps: the second goes to the receiver's IP address, which is never counted.
    const twoSteps = (name: string) =>
      create({
        name,
        error_handling: 'skip_step',
        steps: [
          { name: 'call', type: 'http_call', url, max_attempts: 1 },
          { name: 'after', type: 'http_call', url: `${rx.url}/threshold-after` },
        ],
      });
    for (let i = 1; i <= 5; i++) {
      const res = await twoSteps(`counted ${i}`);
      expect(res.status, `chain ${i}: ${JSON.stringify(res.body)}`).toBe(201);
      // Started in order: each step's action is created (and counted) before the next chain is made.
      await eventually(async () => (await get(res.body.data.id)).steps[0].action_id);
    }

    const eleventh = await twoSteps('over the threshold');
    expect(eleventh.status).toBe(201);
    const done = await until(eleventh.body.data.id, 'completed');
    expect(done.steps[0]).toMatchObject({ status: 'skipped', outcome: 'failed', action_id: null });
    expect(done.steps[0].error).toMatch(
      /^request\.url: threshold-steps\.localhost is not verified .*\/verify/,
    );
    const refused = await api(server, key, 'POST', '/v1/actions', {
      schedule: { wait: '2d' },
      request: { url },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors['request.url'][0]).toContain('threshold-steps.localhost is not verified');
  });

  it('422 for a malformed chain, naming the field', async () => {
    const http = (n: number) => ({ name: `s${n}`, type: 'http_call', url: `${rx.url}/x` });
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'one', steps: [http(0)] }, 'steps'],
      [{ name: 'many', steps: Array.from({ length: 21 }, (_, i) => http(i)) }, 'steps'],
      [{ name: 'type', steps: [http(0), { name: 'x', type: 'sleep', delay: '1s' }] }, 'steps.1.type'],
      [{ name: 'url', steps: [http(0), { name: 'x', type: 'http_call' }] }, 'steps.1.url'],
      [
        {
          name: 'message',
          steps: [http(0), { name: 'x', type: 'gated', gate: { recipients: ['a@example.com'] } }],
        },
        'steps.1.gate.message',
      ],
      [{ name: 'delay', steps: [http(0), { name: 'x', type: 'delay' }] }, 'steps.1.delay'],
      [
        { name: 'cond', steps: [http(0), { ...http(1), condition: '{{steps.0.status}} ~= executed' }] },
        'steps.1.condition',
      ],
      [{ name: 'a'.repeat(256), steps: [http(0), http(1)] }, 'name'],
      [
        { name: 'later', steps: [{ ...http(0), url: `${rx.url}/{{steps.1.status}}` }, http(1)] },
        'steps.0.url',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.status, field).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(res.body.errors)).toContain(field);
    }
  });

  it('a Pro account gets 403 naming the plan', async () => {
    const pro = await runCli(
      ['accounts', 'create', '--name', 'pro-co', '--plan', 'pro', '--json'],
      server.env,
    );
    expect(pro.code).toBe(0);
    const proKey = JSON.parse(pro.stdout).api_key as string;
    const res = await api(server, proKey, 'POST', '/v1/chains', {
      name: 'nope',
      steps: [
        { name: 'a', type: 'delay', delay: '1s' },
        { name: 'b', type: 'delay', delay: '1s' },
      ],
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('business');
  });

  it('SDK and CLI: create, list, iterate, get with the steps table, cancel', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: key });
    const chain = await sched.chains.create({
      name: 'sdk chain',
      steps: [
        { name: 'ping', type: 'webhook', url: `${rx.url}/sdk-ping` },
        { name: 'hold', type: 'delay', delay: '1h' },
      ],
    });
    expect(chain.status).toBe('running');
    await eventually(async () => (await sched.chains.get(chain.id)).steps[1]!.status === 'running');
    const seen: string[] = [];
    for await (const c of sched.chains.iterate({ status: 'running', per_page: 1 })) seen.push(c.id);
    expect(seen).toContain(chain.id);
    expect((await sched.chains.list({ per_page: 2 })).meta.per_page).toBe(2);
    expect(await sched.chains.cancel(chain.id)).toEqual({ id: chain.id, status: 'cancelled' });
    const again = await sched.chains.cancel(chain.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(SchedApiError);
    expect((again as SchedApiError).status).toBe(409);

    const cliEnv = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const file = join(mkdtempSync(join(tmpdir(), 'sched-chain-')), 'chain.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'cli chain',
        steps: [
          { name: 'call', type: 'http_call', url: `${rx.url}/cli-call` },
          { name: 'pause', type: 'delay', delay: '1h' },
        ],
      }),
    );
    const created = await runCli(['chains', 'create', '--file', file, '--json'], cliEnv);
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).data.id as string;
    await eventually(async () => (await sched.chains.get(id)).steps[1]!.status === 'running');
    const shown = await runCli(['chains', 'get', id], cliEnv);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/STEP\s+NAME\s+TYPE\s+STATUS\s+OUTCOME\s+STARTED_AT\s+COMPLETED_AT\s+TOOK/);
    expect(shown.stdout).toMatch(/0\s+call\s+webhook\s+completed\s+executed/);
    expect(shown.stdout).toMatch(/1\s+pause\s+wait\s+running/);
    const listed = await runCli(['chains', 'list', '--status', 'running'], cliEnv);
    expect(listed.stdout).toContain(id);
    const cancelled = await runCli(['chains', 'cancel', id], cliEnv);
    expect(cancelled.stdout).toContain(`cancelled chain ${id}`);
    const bad = await runCli(
      ['chains', 'create', '--file', file.replace('chain.json', 'missing.json')],
      cliEnv,
    );
    expect(bad.code).not.toBe(0);
  });
});
