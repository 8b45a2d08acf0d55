import { createClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// GET /v1/actions/{id}/wait: held until the decision, announced by PostgreSQL whichever process records it.
describe('waiting for a decision', () => {
  let svc: ApprovalServer;
  /** A second process on the same database, API only: the answers are recorded by the other one. */
  let apiOnly: TestServer;
  const create = (to: string, extra: Record<string, unknown> = {}) =>
    svc.call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Wait',
      schedule: { wait: '1s' },
      gate: { message: 'Ship it?', recipients: [to] },
      ...extra,
    });
  const answer = (link: string, decision: string) =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision }),
    });
  const held = (path: string) => api(apiOnly, svc.key, 'GET', path);

  beforeAll(async () => {
    svc = await startApprovalServer('wait', { timeScale: 3600 });
    apiOnly = await startServer({
      databaseUrl: svc.db.url,
      role: 'api',
      dataDir: svc.server.dataDir,
      env: { SCHED_RATE_LIMIT_FACTOR: '100' },
    });
  });
  afterAll(async () => {
    await apiOnly?.stop();
    await svc?.stop();
  });

  it('answers within a second of a confirm recorded by another process', async () => {
    const id = (await create('w1@example.com')).body.data.id;
    const link = await svc.linkOf('w1@example.com');
    await svc.until(id, 'awaiting_response');
    const waiting = held(`/v1/actions/${id}/wait?timeout=30`);
    // Held: nothing comes back while nobody answers.
    const early = await Promise.race([waiting, new Promise((r) => setTimeout(() => r('held'), 500))]);
    expect(early).toBe('held');
    const answeredAt = Date.now();
    expect((await answer(link, 'confirm')).status).toBe(200);
    const res = await waiting;
    expect(Date.now() - answeredAt).toBeLessThan(1000);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ timed_out: false });
    expect(res.body.data).toMatchObject({ id, status: 'executed' });
    expect(res.body.data.recipients[0]).toMatchObject({ email: 'w1@example.com', status: 'confirmed' });
  });

  it('times out with the action still awaiting a response; a decided one answers at once', async () => {
    const id = (await create('w2@example.com')).body.data.id;
    const link = await svc.linkOf('w2@example.com');
    await svc.until(id, 'awaiting_response');
    const started = Date.now();
    const res = await held(`/v1/actions/${id}/wait?for=decision&timeout=2`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ timed_out: true });
    expect(res.body.data.status).toBe('awaiting_response');

    await answer(link, 'decline');
    const decided = await held(`/v1/actions/${id}/wait?for=terminal`);
    expect(decided.body).toMatchObject({ data: { status: 'failed' }, meta: { timed_out: false } });
  });

  it('422 for a timeout out of range or an unknown for; 404 for another account', async () => {
    const id = (await create('w3@example.com')).body.data.id;
    const bad = await held(`/v1/actions/${id}/wait?timeout=61&for=soon`);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['for', 'timeout']);
    expect((await held(`/v1/actions/${id}/wait?timeout=0`)).status).toBe(422);
    const other = JSON.parse(
      (
        await runCli(
          ['accounts', 'create', '--name', 'other', '--plan', 'business', '--json'],
          svc.server.env,
        )
      ).stdout,
    ).api_key;
    const foreign = await api(apiOnly, other, 'GET', `/v1/actions/${id}/wait?timeout=1`);
    expect(foreign.status).toBe(404);
  });

  it('the SDK handle and `sched actions wait` hold until the decision', async () => {
    const sched = createClient({ baseUrl: apiOnly.url, apiKey: svc.key });
    const handle = await sched.approvals.request({
      name: 'SDK wait',
      message: 'Deploy?',
      to: 'w4@example.com',
      schedule: { wait: '1s' },
    });
    const link = await svc.linkOf('w4@example.com');
    await svc.until(handle.id, 'awaiting_response');
    const env = { ...svc.server.env, SCHED_API_URL: apiOnly.url, SCHED_API_KEY: svc.key };
    const timedOut = await runCli(['actions', 'wait', handle.id, '--timeout', '1', '--json'], env);
    expect(timedOut.code).toBe(3);
    expect(JSON.parse(timedOut.stdout).meta).toEqual({ timed_out: true });
    const cli = runCli(['actions', 'wait', handle.id, '--for', 'decision', '--json'], env);
    const sdk = handle.wait({ timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    await answer(link, 'confirm');
    expect((await sdk).status).toBe('executed');
    const out = await cli;
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      data: { status: 'executed' },
      meta: { timed_out: false },
    });
    const bad = await runCli(['actions', 'wait', handle.id, '--timeout', '90'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('validation_failed');
  });

  it('a stopping server answers its held waits at once with the action as it is', async () => {
    const id = (await create('w5@example.com')).body.data.id;
    await svc.until(id, 'awaiting_response');
    const extra = await startServer({
      databaseUrl: svc.db.url,
      role: 'api',
      dataDir: svc.server.dataDir,
    });
    const waiting = api(extra, svc.key, 'GET', `/v1/actions/${id}/wait?timeout=60`);
    await new Promise((r) => setTimeout(r, 500));
    const stopping = Date.now();
    const [res, code] = await Promise.all([waiting, extra.stop()]);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(code).toBe(0);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { id, status: 'awaiting_response' }, meta: { timed_out: true } });
  });
});
