import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

const future = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('webhook actions: the API', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let key: string;
  const create = (body: Record<string, unknown>, k = key) => api(server, k, 'POST', '/v1/actions', body);
  const get = async (id: string) => (await api(server, key, 'GET', `/v1/actions/${id}`)).body.data;
  const hook = () => ({ url: `${rx.url}/hook` });

  beforeAll(async () => {
    db = await createTestDatabase('actionsapi');
    rx = await startReceiver();
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('answers 201 with the fields the spec lists and a generated name', async () => {
    const res = await create({ schedule: { wait: '10m' }, request: hook(), description: 'd' });
    expect(res.status).toBe(201);
    const a = res.body.data;
    for (const field of [
      'id',
      'name',
      'description',
      'mode',
      'status',
      'timezone',
      'scheduled_for',
      'idempotency_key',
      'dedup_keys',
      'attempt_count',
      'max_attempts',
      'retry_strategy',
      'is_recurring',
      'created_at',
      'updated_at',
    ]) {
      expect(a).toHaveProperty(field);
    }
    expect(a).toMatchObject({
      status: 'scheduled',
      mode: 'webhook',
      timezone: 'UTC',
      retry_strategy: 'exponential',
      max_attempts: 5,
      is_recurring: false,
      dedup_keys: [],
    });
    expect(a.name).toMatch(/^POST 127\.0\.0\.1:\d+\/hook$/);
    const delta = new Date(a.scheduled_for).getTime() - Date.now();
    expect(delta).toBeGreaterThan(9 * 60_000);
    expect(delta).toBeLessThan(10 * 60_000 + 1000);
  });

  it.each([
    [{ schedule: { wait: '10m' } }, 'request'],
    [{ schedule: { wait: '10m' }, request: { url: 'not a url' } }, 'request.url'],
    [{ schedule: { wait: '10m' }, request: { url: 'ftp://x.example.com/' } }, 'request.url'],
    [{ schedule: { wait: '10 minutes' }, request: { url: 'https://example.com' } }, 'schedule.wait'],
    [{ schedule: { preset: 'someday' }, request: { url: 'https://example.com' } }, 'schedule.preset'],
    [{ request: { url: 'https://example.com' } }, 'schedule'],
    [{ schedule: { wait: '10m', preset: '1h' }, request: { url: 'https://example.com' } }, 'schedule'],
    [{ scheduled_for: '2001-01-01T00:00:00Z', request: { url: 'https://example.com' } }, 'scheduled_for'],
    [{ scheduled_for: 'tomorrow-ish', request: { url: 'https://example.com' } }, 'scheduled_for'],
    [
      { schedule: { wait: '10m' }, timezone: 'Mars/Olympus', request: { url: 'https://example.com' } },
      'timezone',
    ],
    [
      { schedule: { wait: '10m', timezone: 'Nowhere/City' }, request: { url: 'https://example.com' } },
      'schedule.timezone',
    ],
    [{ schedule: { wait: '10m' }, max_attempts: 0, request: { url: 'https://example.com' } }, 'max_attempts'],
    [
      { schedule: { wait: '10m' }, max_attempts: 21, request: { url: 'https://example.com' } },
      'max_attempts',
    ],
    [
      { schedule: { wait: '10m' }, retry_strategy: 'random', request: { url: 'https://example.com' } },
      'retry_strategy',
    ],
    [
      { schedule: { wait: '10m' }, description: 'x'.repeat(1001), request: { url: 'https://example.com' } },
      'description',
    ],
    [
      {
        schedule: { wait: '10m' },
        idempotency_key: 'k'.repeat(256),
        request: { url: 'https://example.com' },
      },
      'idempotency_key',
    ],
    [
      { schedule: { wait: '10m' }, dedup_keys: ['has space'], request: { url: 'https://example.com' } },
      'dedup_keys.0',
    ],
    [
      {
        schedule: { wait: '10m' },
        dedup_keys: Array.from({ length: 11 }, (_, i) => `k${i}`),
        request: { url: 'https://example.com' },
      },
      'dedup_keys',
    ],
    [
      { schedule: { wait: '10m' }, request: { url: 'https://example.com', method: 'TRACE' } },
      'request.method',
    ],
    [
      {
        schedule: { wait: '10m' },
        request: { url: 'https://example.com' },
        recurrence: { frequency: 1, unit: 'm', end_type: 'never' },
      },
      'recurrence.frequency',
    ],
    [
      {
        schedule: { wait: '10m' },
        request: { url: 'https://example.com' },
        recurrence: { frequency: 1, unit: 'h', end_type: 'count' },
      },
      'recurrence.max_occurrences',
    ],
    [
      {
        schedule: { wait: '10m' },
        request: { url: 'https://example.com' },
        recurrence: { frequency: 1, unit: 'h', end_type: 'count', max_occurrences: 1 },
      },
      'recurrence.max_occurrences',
    ],
    [
      {
        schedule: { wait: '10m' },
        request: { url: 'https://example.com' },
        coordination: { on_execute: { condition: 'wait_for_previous', reschedule_delay: 10 } },
        dedup_keys: ['a'],
      },
      'coordination.on_execute.reschedule_delay',
    ],
    [
      {
        schedule: { wait: '10m' },
        request: { url: 'https://example.com' },
        coordination: { on_create: 'skip_if_exists' },
      },
      'dedup_keys',
    ],
    [
      { schedule: { wait: '10m' }, request: { url: 'https://example.com' }, webhook_secret: 'short' },
      'webhook_secret',
    ],
    [
      { schedule: { wait: '10m' }, request: { url: 'https://example.com', headers: { 'Bad Header': 'x' } } },
      'request.headers.Bad Header',
    ],
  ])('422 names the field: %j → %s', async (body, field) => {
    const before = (await api(server, key, 'GET', '/v1/actions?per_page=1')).body.meta.total;
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.message).toBeTypeOf('string');
    expect(Object.keys(res.body.errors), JSON.stringify(res.body.errors)).toContain(field);
    expect((await api(server, key, 'GET', '/v1/actions?per_page=1')).body.meta.total).toBe(before);
  });

  it('past scheduled_for within a minute fires now; presets resolve in the timezone; scheduled_for is UTC', async () => {
    const recent = await create({
      scheduled_for: new Date(Date.now() - 5000).toISOString(),
      request: { url: `${rx.url}/late` },
    });
    expect(recent.status).toBe(201);
    await rx.waitFor('/late');
    const tomorrow = await create({
      schedule: { preset: 'tomorrow', timezone: 'Asia/Tokyo' },
      request: hook(),
    });
    expect(tomorrow.body.data.timezone).toBe('Asia/Tokyo');
    const delta = new Date(tomorrow.body.data.scheduled_for).getTime() - Date.now();
    expect(delta).toBeGreaterThan(23 * 3600_000 - 2000);
    expect(delta).toBeLessThan(25 * 3600_000);
    const local = await create({
      scheduled_for: '2099-06-01T09:00:00',
      timezone: 'Europe/Berlin',
      request: hook(),
    });
    expect(local.status).toBe(422); // beyond the 365-day horizon
    // scheduled_for is a UTC timestamp: without an offset it is UTC, whatever `timezone` says.
    const day = future(48 * 86400_000).slice(0, 10);
    const inNewYork = await create({
      scheduled_for: `${day}T09:00:00`,
      timezone: 'America/New_York',
      request: hook(),
    });
    expect(inNewYork.status).toBe(201);
    expect(inNewYork.body.data).toMatchObject({
      scheduled_for: `${day}T09:00:00.000Z`,
      timezone: 'America/New_York',
    });
  });

  it('accepts the deprecated names and answers in current names', async () => {
    const res = await create({
      type: 'immediate',
      intent: { delay: '15m' },
      coordination_keys: ['legacy:1'],
      request: hook(),
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mode: 'webhook', dedup_keys: ['legacy:1'] });
    expect(res.body.data).not.toHaveProperty('coordination_keys');
    const at = future(3600_000);
    const exec = await create({ mode: 'immediate', execute_at: at, request: hook() });
    expect(exec.body.data.scheduled_for).toBe(at);
    const exec2 = await create({ execute_at_utc: at, request: hook() });
    expect(exec2.body.data.scheduled_for).toBe(at);
    const repeat = await create({
      schedule: { wait: '1h' },
      repeat: { frequency: 1, unit: 'd', end_type: 'never' },
      request: hook(),
    });
    expect(repeat.body.data).toMatchObject({
      is_recurring: true,
      recurrence: { frequency: 1, unit: 'd', end_type: 'never' },
    });
    const listed = await api(
      server,
      key,
      'GET',
      '/v1/actions?status=pending_resolution&mode=immediate&per_page=100',
    );
    expect(listed.status).toBe(200);
    expect(
      listed.body.data.every(
        (a: { status: string; mode: string }) => a.status === 'scheduled' && a.mode === 'webhook',
      ),
    ).toBe(true);
    expect(listed.body.data.map((a: { id: string }) => a.id)).toContain(res.body.data.id);
  });

  it('errors name the deprecated field the caller sent; execute_at_utc without an offset is UTC', async () => {
    const res = await create({ execute_at: '2001-01-01T00:00:00Z', request: hook() });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['execute_at']);
    const delay = await create({ intent: { delay: 'soon' }, request: hook() });
    expect(Object.keys(delay.body.errors)).toEqual(['intent.delay']);
    const wall = future(2 * 86400_000).slice(0, 19);
    const utc = await create({ execute_at_utc: wall, timezone: 'Asia/Tokyo', request: hook() });
    expect(utc.body.data.scheduled_for).toBe(`${wall}.000Z`);
  });

  it('lists with filters and pagination; list items carry only the listed fields', async () => {
    await create({
      name: 'Invoice reminder alpha',
      description: 'for ACME',
      schedule: { wait: '2h' },
      request: hook(),
      dedup_keys: ['inv:1'],
    });
    await create({ name: 'Other', schedule: { wait: '2h' }, request: hook(), dedup_keys: ['inv:2'] });
    const search = await api(server, key, 'GET', '/v1/actions?search=acme');
    expect(search.body.data.map((a: { name: string }) => a.name)).toEqual(['Invoice reminder alpha']);
    expect(Object.keys(search.body.data[0]).sort()).toEqual([
      'created_at',
      'dedup_keys',
      'destination_host',
      'id',
      'idempotency_key',
      'last_attempt',
      'mode',
      'name',
      'replay_of',
      'scheduled_for',
      'status',
      'updated_at',
    ]);
    const byKey = await api(server, key, 'GET', '/v1/actions?coordination_key=inv:2');
    expect(byKey.body.data.map((a: { name: string }) => a.name)).toEqual(['Other']);
    expect((await api(server, key, 'GET', '/v1/actions?dedup_key=inv:1')).body.data).toHaveLength(1);
    const page = await api(server, key, 'GET', '/v1/actions?per_page=2&page=2');
    expect(page.body.meta).toMatchObject({ current_page: 2, per_page: 2 });
    expect(page.body.meta.last_page).toBe(Math.ceil(page.body.meta.total / 2));
    expect(page.body.data).toHaveLength(2);
    expect((await api(server, key, 'GET', '/v1/actions?per_page=101')).status).toBe(422);
    expect((await api(server, key, 'GET', '/v1/actions?status=bogus')).status).toBe(422);
    const oneTime = await api(server, key, 'GET', '/v1/actions?recurring=one-time&per_page=100');
    expect(oneTime.body.data.length).toBeGreaterThan(0);
    const keys = await api(server, key, 'GET', '/v1/coordination-keys');
    expect(keys.body.keys).toEqual(expect.arrayContaining(['inv:1', 'inv:2', 'legacy:1']));
  });

  it('idempotency key: a live action is returned; a finished one lets a new one be created', async () => {
    const body = { idempotency_key: 'order-7', schedule: { wait: '1h' }, request: hook() };
    const first = await create(body);
    expect(first.status).toBe(201);
    const again = await create(body);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.meta).toMatchObject({ skipped: true });
    const cancelled = await api(server, key, 'DELETE', '/v1/actions', { idempotency_key: 'order-7' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toEqual({
      id: first.body.data.id,
      name: first.body.data.name,
      status: 'cancelled',
    });
    const fresh = await create(body);
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.id).not.toBe(first.body.data.id);
    expect((await api(server, key, 'DELETE', '/v1/actions', { idempotency_key: 'never-used' })).status).toBe(
      404,
    );
  });

  it('two racing creates with one idempotency key make exactly one action', async () => {
    const body = { idempotency_key: 'race-1', schedule: { wait: '1h' }, request: hook() };
    const results = await Promise.all(Array.from({ length: 8 }, () => create(body)));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    expect(results.every((r) => r.body.data.id === created[0]!.body.data.id)).toBe(true);
  });

  it('coordination.on_create: skip_if_exists returns the live action; racing creates make one', async () => {
    const body = {
      dedup_keys: ['user:1:welcome'],
      coordination: { on_create: 'skip_if_exists' },
      schedule: { wait: '1h' },
      request: hook(),
    };
    const results = await Promise.all(Array.from({ length: 6 }, () => create(body)));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 200)) {
      expect(r.body.meta).toEqual({
        skipped: true,
        reason: 'existing_action_found',
        existing_status: 'scheduled',
      });
      expect(r.body.data.id).toBe(created[0]!.body.data.id);
    }
  });

  it('coordination.on_create: replace_existing (and its alias cancel_and_replace) cancels the live ones first', async () => {
    const a = await create({ dedup_keys: ['cart:9'], schedule: { wait: '1h' }, request: hook() });
    const b = await create({
      dedup_keys: ['cart:9'],
      coordination: { on_create: 'replace_existing' },
      schedule: { wait: '1h' },
      request: hook(),
    });
    expect(b.status).toBe(201);
    expect((await get(a.body.data.id)).status).toBe('cancelled');
    const c = await create({
      dedup_keys: ['cart:9', 'other'],
      coordination: { on_create: 'cancel_and_replace' },
      schedule: { wait: '1h' },
      request: hook(),
    });
    expect(c.status).toBe(201);
    expect((await get(b.body.data.id)).status).toBe('cancelled');
    expect((await get(c.body.data.id)).status).toBe('scheduled');
  });

  it('coordination.on_execute rules decide at fire time', async () => {
    // skip_if_previous_pending: an earlier live action shares the key, so this one is cancelled when due.
    await create({ dedup_keys: ['job:a'], schedule: { wait: '1h' }, request: hook() });
    const skipped = await create({
      dedup_keys: ['job:a'],
      coordination: { on_execute: { condition: 'skip_if_previous_pending' } },
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/never-a` },
    });
    await eventually(async () => (await get(skipped.body.data.id)).status === 'cancelled');
    expect((await get(skipped.body.data.id)).last_error).toContain('skip_if_previous_pending');

    // execute_if_previous_succeeded: the previous one executed, so this one runs.
    const prev = await create({
      dedup_keys: ['job:b'],
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/b1` },
    });
    await eventually(async () => (await get(prev.body.data.id)).status === 'executed');
    const next = await create({
      dedup_keys: ['job:b'],
      coordination: { on_execute: { condition: 'execute_if_previous_succeeded' } },
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/b2` },
    });
    await rx.waitFor('/b2');
    expect(
      await eventually(async () => ((await get(next.body.data.id)).status === 'executed' ? 'ok' : null)),
    ).toBe('ok');

    // execute_if_previous_failed with on_condition_not_met=fail: the previous succeeded, so this one fails.
    const strict = await create({
      dedup_keys: ['job:b'],
      coordination: { on_execute: { condition: 'execute_if_previous_failed', on_condition_not_met: 'fail' } },
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/never-b` },
    });
    await eventually(async () => (await get(strict.body.data.id)).status === 'failed');
    expect(rx.to('/never-b')).toHaveLength(0);

    // wait_for_previous: reschedules (300 s / 300 = 1 s) until the earlier action is done, then runs after it.
    const first = await create({
      dedup_keys: ['job:c'],
      schedule: { wait: '3s' },
      request: { url: `${rx.url}/c1` },
    });
    const second = await create({
      dedup_keys: ['job:c'],
      coordination: { on_execute: { condition: 'wait_for_previous' } },
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/c2` },
    });
    const [c2] = await rx.waitFor('/c2');
    const [c1] = rx.to('/c1');
    expect(c1).toBeDefined();
    expect(c2!.at).toBeGreaterThanOrEqual(c1!.at);
    await eventually(async () => (await get(second.body.data.id)).status === 'executed');
    expect((await get(first.body.data.id)).status).toBe('executed');
    expect((await get(second.body.data.id)).delivery_attempts).toHaveLength(1);
    expect(rx.to('/never-a')).toHaveLength(0);
  });

  it('cancels: by id (409 once terminal), by coordination key (counts), unknown key 404', async () => {
    const a = await create({ schedule: { wait: '1h' }, request: hook() });
    const cancel = await api(server, key, 'DELETE', `/v1/actions/${a.body.data.id}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({
      data: { id: a.body.data.id, name: a.body.data.name, status: 'cancelled' },
    });
    const again = await api(server, key, 'DELETE', `/v1/actions/${a.body.data.id}`);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('cancelled');

    const done = await create({ dedup_keys: ['batch:5'], schedule: { wait: '1s' }, request: hook() });
    await eventually(async () => (await get(done.body.data.id)).status === 'executed');
    await create({ dedup_keys: ['batch:5'], schedule: { wait: '1h' }, request: hook() });
    await create({ dedup_keys: ['batch:5', 'x'], schedule: { wait: '2h' }, request: hook() });
    const byKey = await api(server, key, 'DELETE', '/v1/actions/by-coordination-key', {
      coordination_key: 'batch:5',
    });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual({
      message: expect.any(String),
      cancelled: 2,
      skipped: 1,
      coordination_key: 'batch:5',
    });
    expect(
      (await api(server, key, 'DELETE', '/v1/actions/by-coordination-key', { coordination_key: 'batch:5' }))
        .status,
    ).toBe(404);
    expect(
      (await api(server, key, 'DELETE', '/v1/actions/by-coordination-key', { coordination_key: 'nope' }))
        .status,
    ).toBe(404);
  });

  it("another account's action answers 404 to every verb", async () => {
    const mine = await create({ schedule: { wait: '1h' }, request: hook() });
    const other = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'intruder', '--plan', 'business', '--json'], server.env))
        .stdout,
    ).api_key;
    for (const [method, path] of [
      ['GET', `/v1/actions/${mine.body.data.id}`],
      ['DELETE', `/v1/actions/${mine.body.data.id}`],
      ['POST', `/v1/actions/${mine.body.data.id}/retry`],
    ] as const) {
      const res = await api(server, other, method, path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'action not found' });
    }
    expect((await api(server, other, 'GET', '/v1/actions')).body.meta.total).toBe(0);
    expect((await get(mine.body.data.id)).status).toBe('scheduled');
  });

  it('concurrent creates (inserted and counted together per turn of the event loop) each make their own action', async () => {
    const used = async () => (await api(server, key, 'GET', '/v1/quota')).body.data.actions.used as number;
    const before = await used();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        create({ name: `burst-${i}`, schedule: { wait: '2h' }, request: hook() }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    const ids = new Set(results.map((r) => r.body.data.id as string));
    expect(ids.size).toBe(40);
    for (const [i, r] of results.entries()) {
      expect(r.body.data.name).toBe(`burst-${i}`);
      const read = await api(server, key, 'GET', `/v1/actions/${r.body.data.id}`);
      expect(read.body.data).toMatchObject({ name: `burst-${i}`, status: 'scheduled' });
    }
    expect(await used()).toBe(before + 40);
  });

  it('quota: counts creates this month (cancelled included); the Free plan stops at 100 with 403', async () => {
    const created = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'free-tier', '--plan', 'free', '--json'], server.env))
        .stdout,
    );
    const free = created.api_key as string;
    const q0 = await api(server, free, 'GET', '/v1/quota');
    expect(q0.status).toBe(200);
    const now = new Date();
    expect(q0.body.data).toMatchObject({
      period: {
        year: now.getUTCFullYear(),
        month: now.getUTCMonth() + 1,
        month_name: now.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' }),
      },
      actions: { used: 0, limit: 100 },
      plan: 'free',
    });
    expect(q0.body.data.sms).toHaveProperty('limit');
    expect(q0.body.data.ai_suggestions).toHaveProperty('percentage');
    const tooFar = await create({ schedule: { wait: '31d' }, request: hook() }, free);
    expect(tooFar.status).toBe(422);
    expect(tooFar.body.errors).toHaveProperty('schedule.wait');
    expect(
      (await create({ schedule: { wait: '1h' }, request: hook(), max_attempts: 4 }, free)).body.errors,
    ).toHaveProperty('max_attempts');
    const first = await create({ schedule: { wait: '1h' }, request: hook() }, free);
    expect(first.body.data.max_attempts).toBe(3);
    await api(server, free, 'DELETE', `/v1/actions/${first.body.data.id}`);
    for (let i = 1; i < 100; i++)
      expect((await create({ schedule: { wait: '1h' }, request: hook() }, free)).status).toBe(201);
    const over = await create({ schedule: { wait: '1h' }, request: hook() }, free);
    expect(over.status).toBe(403);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.body.message).toContain('100');
    expect((await api(server, free, 'GET', '/v1/quota')).body.data.actions).toEqual({
      used: 100,
      limit: 100,
    });
    // Business is unlimited.
    expect((await api(server, key, 'GET', '/v1/quota')).body.data.actions.limit).toBeNull();
  });
});

describe('SSRF guard at creation (private destinations not allowed)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase('ssrf');
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_ALLOW_PRIVATE_DESTINATIONS: 'false', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it.each([
    'http://example.com/hook',
    'https://127.0.0.1/hook',
    'https://2130706433/hook',
    'https://0177.0.0.1/hook',
    'https://0x7f.0.0.1/hook',
    'https://127.1/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.5/',
    'https://192.168.1.1/',
    'https://172.16.0.1/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://localhost/hook',
    'https://metadata.google.internal/',
    'https://user:pass@example.com/',
  ])('refuses %s with 422 on request.url', async (url) => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('request.url');
  });

  it('guards callback_url the same way, and accepts a public https destination', async () => {
    const bad = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: 'https://example.com/x' },
      callback_url: 'https://127.0.0.1/cb',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('callback_url');
    const ok = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: 'https://example.com/x' },
    });
    expect(ok.status).toBe(201);
  });
});
