import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Action,
  assertWebhook,
  createClient,
  SchedApiError,
  type SchedClient,
  SchedSignatureError,
  verifyWebhook,
} from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, statusOf } from '../support/wait.js';
import { runCli, startServer, type TestServer } from '../support/server.js';

interface Captured {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback webhook receiver: records every request and answers the status set for its path (default 200). */
async function startReceiver() {
  const requests: Captured[] = [];
  const statuses = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(statuses.get(path) ?? 200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    statuses,
    to: (path: string) => requests.filter((r) => r.path === path),
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}

/** Each run of the binary loads the server package (~1 s of CPU); a loaded machine needs headroom. */
const CLI_TIMEOUT = { timeout: 60_000 };

/** Far enough ahead never to fire during the run, well inside every plan's horizon. */
const later = { schedule: { wait: '7d' } } as const;

describe('actions through the SDK and the sched binary', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sched: SchedClient;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase('actions_sdk_cli');
    [server, receiver] = await Promise.all([startServer({ databaseUrl: db.url }), startReceiver()]);
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
  });

  it('SDK: create, then the receiver gets the request and get shows the executed action with its attempt', async () => {
    const created = await sched.actions.create({
      name: 'sdk delivery',
      schedule: { wait: '1s' },
      request: { url: `${receiver.base}/sdk`, headers: { 'x-test': 'yes' }, body: { hello: 'world' } },
    });
    expect(created.skipped).toBe(false);
    expect(created.action).toMatchObject({ name: 'sdk delivery', status: 'scheduled', attempt_count: 0 });
    const done = await statusOf(sched, created.action.id, 'executed');
    expect(done.delivery_attempts).toHaveLength(1);
    expect(done.delivery_attempts[0]).toMatchObject({
      attempt_number: 1,
      status_code: 200,
      outcome: 'success',
    });
    const [request] = receiver.to('/sdk');
    expect(request).toMatchObject({ method: 'POST', body: '{"hello":"world"}' });
    expect(request!.headers['x-test']).toBe('yes');
  });

  it('SDK: iterate walks every page; list answers one page with meta', async () => {
    const tag = `iter-${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await sched.actions.create({
        ...later,
        name: `${tag}-${i}`,
        request: { url: `${receiver.base}/never` },
      });
      ids.push(r.action.id);
    }
    const page = await sched.actions.list({ search: tag, per_page: 3 });
    expect(page.meta).toEqual({ current_page: 1, last_page: 3, total: 7, per_page: 3 });
    expect(page.data).toHaveLength(3);
    const seen: string[] = [];
    for await (const a of sched.actions.iterate({ search: tag, per_page: 3 })) seen.push(a.id);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect((await sched.actions.listAll({ search: tag, per_page: 3, status: 'scheduled' })).length).toBe(7);
    expect(await sched.actions.listAll({ search: tag, status: 'executed' })).toEqual([]);
  });

  it('SDK: an idempotency key of a live action answers skipped; after cancelling it a new action is created', async () => {
    const key = `idem-${randomUUID()}`;
    const body = { ...later, idempotency_key: key, request: { url: `${receiver.base}/never` } };
    const first = await sched.actions.create(body);
    expect(first.skipped).toBe(false);
    const again = await sched.actions.create(body);
    expect(again).toMatchObject({
      skipped: true,
      reason: 'idempotency_key_exists',
      existingStatus: 'scheduled',
      action: { id: first.action.id, status: 'scheduled' },
    });
    expect(await sched.actions.cancelByIdempotencyKey(key)).toEqual({
      id: first.action.id,
      name: first.action.name,
      status: 'cancelled',
    });
    const fresh = await sched.actions.create(body);
    expect(fresh.skipped).toBe(false);
    expect(fresh.action.id).not.toBe(first.action.id);
  });

  it('SDK: cancel by id (409 the second time), by dedup key, and the coordination keys', async () => {
    const one = await sched.actions.create({ ...later, request: { url: `${receiver.base}/never` } });
    expect(await sched.actions.cancel(one.action.id)).toMatchObject({
      id: one.action.id,
      status: 'cancelled',
    });
    const err = await sched.actions.cancel(one.action.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedApiError);
    expect(err).toMatchObject({ status: 409 });
    expect((err as SchedApiError).message).toContain('cancelled');

    const key = `group:${randomUUID().slice(0, 8)}`;
    const shared = { ...later, dedup_keys: [key], request: { url: `${receiver.base}/never` } };
    const a = await sched.actions.create(shared);
    await sched.actions.create(shared);
    expect(await sched.coordinationKeys()).toContain(key);
    expect(await sched.actions.cancelByCoordinationKey(key)).toMatchObject({
      cancelled: 2,
      skipped: 0,
      coordination_key: key,
    });
    expect((await sched.actions.get(a.action.id)).status).toBe('cancelled');
    await expect(sched.actions.cancelByCoordinationKey(key)).rejects.toMatchObject({ status: 404 });
    await expect(sched.actions.get(randomUUID())).rejects.toMatchObject({ status: 404 });
  });

  it('SDK: a 400 fails the action at once; retry after the receiver recovers delivers it', async () => {
    receiver.statuses.set('/flaky', 400);
    const created = await sched.actions.create({
      schedule: { wait: '1s' },
      request: { url: `${receiver.base}/flaky` },
    });
    const failed = await statusOf(sched, created.action.id, 'failed');
    expect(failed.delivery_attempts).toMatchObject([{ status_code: 400, outcome: 'permanent' }]);

    receiver.statuses.set('/flaky', 200);
    expect(await sched.actions.retry(created.action.id)).toEqual({
      id: created.action.id,
      name: created.action.name,
      status: 'resolved',
      attempt_count: 0,
      manual_retry_count: 1,
    });
    const executed = await statusOf(sched, created.action.id, 'executed');
    expect(executed.manual_retry_count).toBe(1);
    expect(executed.delivery_attempts.at(-1)).toMatchObject({ status_code: 200, outcome: 'success' });
    expect(receiver.to('/flaky')).toHaveLength(2);
    // Only failed actions can be retried.
    await expect(sched.actions.retry(created.action.id)).rejects.toMatchObject({ status: 422 });
  });

  it('SDK: verifyWebhook accepts a signed delivery as received, and refuses it tampered or with another secret', async () => {
    const secret = `whsec-test-${randomUUID()}`;
    const created = await sched.actions.create({
      schedule: { wait: '1s' },
      webhook_secret: secret,
      request: { url: `${receiver.base}/signed`, body: { signed: true } },
    });
    expect(created.action.signed).toBe(true);
    const request = await eventually(async () => receiver.to('/signed')[0]);
    expect(verifyWebhook({ secret, headers: request.headers, body: request.body })).toMatchObject({
      ok: true,
      scheme: 'x-service-signature-v2',
      id: `${created.action.id}.0`,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(request.headers)) if (typeof v === 'string') headers.set(k, v);
    headers.delete('x-service-signature');
    expect(assertWebhook({ secret, headers, body: Buffer.from(request.body) })).toMatchObject({
      scheme: 'standard-webhooks',
      id: `${created.action.id}.0`,
    });
    expect(verifyWebhook({ secret, headers: request.headers, body: '{"signed":false}' })).toEqual({
      ok: false,
      reason: 'signature mismatch',
    });
    expect(() => assertWebhook({ secret: `${secret}-other`, headers, body: request.body })).toThrow(
      SchedSignatureError,
    );
  });

  it("SDK: quota counts this month's actions, cancelled included; a Free account shows its limit of 100", async () => {
    const quota = await sched.quota.get();
    const total = (await sched.actions.list({ per_page: 1 })).meta.total;
    expect(quota).toMatchObject({ plan: 'business', actions: { used: total, limit: null } });
    const now = new Date();
    expect(quota.period).toMatchObject({ year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 });

    const account = await runCli(
      ['accounts', 'create', '--name', 'Free Co', '--plan', 'free', '--json'],
      env,
    );
    expect(account.code).toBe(0);
    const free = createClient({ baseUrl: server.url, apiKey: JSON.parse(account.stdout).api_key });
    expect((await free.quota.get()).actions).toEqual({ used: 0, limit: 100 });
    const made = await free.actions.create({ ...later, request: { url: `${receiver.base}/never` } });
    await free.actions.cancel(made.action.id);
    expect((await free.quota.get()).actions).toEqual({ used: 1, limit: 100 });
    // Another account's action is invisible.
    const theirs = (await sched.actions.create({ ...later, request: { url: `${receiver.base}/never` } }))
      .action;
    await expect(free.actions.get(theirs.id)).rejects.toMatchObject({ status: 404 });
    await expect(free.actions.cancel(theirs.id)).rejects.toMatchObject({ status: 404 });
  });

  it(
    'CLI: actions create --in 2s --json delivers the body; get shows the attempt; list shows the action',
    CLI_TIMEOUT,
    async () => {
      const url = `${receiver.base}/cli`;
      const created = await runCli(
        ['actions', 'create', '--in', '2s', '--url', url, '--body', '{"a":1}', '--json'],
        env,
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const action = JSON.parse(created.stdout).data as Action;
      expect(action).toMatchObject({ status: 'scheduled', request: { url, method: 'POST', body: { a: 1 } } });

      const request = await eventually(async () => receiver.to('/cli')[0]);
      expect(JSON.parse(request.body)).toEqual({ a: 1 });
      await statusOf(sched, action.id, 'executed');

      // Independent invocations run side by side: each one pays the binary's start-up.
      const [shown, shownJson, listed, pageJson, allJson] = await Promise.all([
        runCli(['actions', 'get', action.id], env),
        runCli(['actions', 'get', action.id, '--json'], env),
        runCli(['actions', 'list', '--status', 'executed'], env),
        runCli(['actions', 'list', '--per-page', '2', '--json'], env),
        runCli(['actions', 'list', '--all', '--per-page', '2', '--json'], env),
      ]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^status +executed$/m);
      expect(shown.stdout).toMatch(/ATTEMPT +STARTED_AT +LATENESS_MS +STATUS_CODE +OUTCOME +ERROR/);
      expect(shown.stdout).toMatch(/ 1 +\d{4}-\d\d-\d\dT\S+ +\d+ +200 +success +-/);
      expect(JSON.parse(shownJson.stdout).data.delivery_attempts).toHaveLength(1);

      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/ID +NAME +STATUS +SCHEDULED_FOR/);
      expect(listed.stdout).toContain(action.id);
      const page = JSON.parse(pageJson.stdout);
      expect(page.data).toHaveLength(2);
      expect(page.meta.per_page).toBe(2);
      expect(JSON.parse(allJson.stdout).data).toHaveLength(page.meta.total);
    },
  );

  it('CLI: a person creates with --in 10m and cancels by id and by dedup key', CLI_TIMEOUT, async () => {
    const created = await runCli(
      [
        'actions',
        'create',
        '--url',
        `${receiver.base}/never`,
        '--in',
        '10m',
        '--body',
        '{"a":1}',
        '--dedup-key',
        'cli-key',
      ],
      env,
    );
    expect(created.code).toBe(0);
    const id = /^scheduled action (\S+)$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect(created.stdout).toMatch(/status +scheduled/);
    expect(created.stdout).toMatch(/scheduled_for +\S+ \(in (10m|9m \d+s)\)/);

    const cancelled = await runCli(['actions', 'cancel', id!], env);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain(`cancelled ${id}`);
    const again = await runCli(['actions', 'cancel', id!], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('(HTTP 409)');

    await runCli(
      ['actions', 'create', '--url', `${receiver.base}/never`, '--in', '1h', '--dedup-key', 'cli-key'],
      env,
    );
    const byKey = await runCli(['actions', 'cancel', '--dedup-key', 'cli-key', '--json'], env);
    expect(byKey.code).toBe(0);
    expect(JSON.parse(byKey.stdout)).toMatchObject({ cancelled: 1, coordination_key: 'cli-key' });
  });

  it(
    'CLI: quota --json, and usage errors exit 2 with a clear message before any request',
    CLI_TIMEOUT,
    async () => {
      const [quota, quotaTable, badJson, noWhen, noTarget, refused] = await Promise.all([
        runCli(['quota', '--json'], env),
        runCli(['quota'], env),
        runCli(['actions', 'create', '--url', `${receiver.base}/x`, '--in', '10m', '--body', '{a:1}'], env),
        runCli(['actions', 'create', '--url', `${receiver.base}/x`], env),
        runCli(['actions', 'cancel'], env),
        // A request the server refuses is exit 1 with its field errors.
        runCli(['actions', 'create', '--url', 'not a url', '--in', '10m'], env),
      ]);
      expect(quota.code).toBe(0);
      expect(JSON.parse(quota.stdout).data).toMatchObject({ plan: 'business', actions: { limit: null } });
      expect(quotaTable.stdout).toMatch(/RESOURCE +USED +LIMIT/);
      expect(badJson.code).toBe(2);
      expect(badJson.stderr).toContain('--body is not valid JSON');
      expect(noWhen.code).toBe(2);
      expect(noWhen.stderr).toContain('--in');
      expect(noTarget.code).toBe(2);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('request.url');
    },
  );
});
