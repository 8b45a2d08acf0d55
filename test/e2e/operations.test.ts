import { createClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { seedActions, sqlValue } from '../support/seed.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// End to end: the failed-delivery inbox, replay, and a bulk retry over 300 failed actions, on a
// real server process, its database and a loopback receiver.
describe('operations: inbox, replay, bulk operations', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let accountId: string;
  const call = (method: string, path: string, body?: unknown) =>
    api(server, server.apiKey, method, path, body);
  const action = async (id: string) => (await call('GET', `/v1/actions/${id}`)).body.data;
  const settled = (id: string, status: string) =>
    eventually(async () => {
      const a = await action(id);
      return a.status === status ? a : null;
    }, 30_000);

  beforeAll(async () => {
    db = await createTestDatabase('operations');
    rx = await startReceiver();
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
    accountId = await sqlValue<string>(db.url, 'select id from accounts order by created_at limit 1');
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('inbox: every attempt records its error class; the list filters on host, status code, class and times', async () => {
    rx.on('/inbox-503', { status: 503 });
    rx.on('/inbox-404', { status: 404 });
    const create = async (name: string, url: string) => {
      const res = await call('POST', '/v1/actions', {
        name,
        schedule: { wait: '1s' },
        max_attempts: 1,
        request: { url },
      });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const started = new Date(Date.now() - 1000).toISOString();
    const [a503, a404, refused] = [
      await create('inbox 503', `${rx.url}/inbox-503`),
      await create('inbox 404', `${rx.url}/inbox-404`),
      await create('inbox refused', 'http://127.0.0.1:1/nothing'),
    ];
    for (const id of [a503, a404, refused]) await settled(id!, 'failed');

    const detail = await action(a503!);
    expect(detail.delivery_attempts[0]).toMatchObject({ status_code: 503, error_class: 'http' });
    expect(detail.last_attempt).toMatchObject({ status_code: 503, error_class: 'http' });
    expect(detail.last_attempt.lateness_ms).toBeGreaterThanOrEqual(0);
    expect((await action(refused!)).last_attempt).toMatchObject({
      status_code: null,
      error_class: 'connect',
    });

    const ids = async (query: string) => {
      const res = await call('GET', `/v1/actions?search=inbox&${query}`);
      expect(res.status).toBe(200);
      return (res.body.data as { id: string }[]).map((a) => a.id).sort();
    };
    expect(await ids('destination_host=127.0.0.1')).toEqual([a503, a404, refused].sort());
    expect(await ids('error_class=http')).toEqual([a503, a404].sort());
    expect(await ids('error_class=connect')).toEqual([refused]);
    expect(await ids('last_status_code=5xx')).toEqual([a503]);
    expect(await ids('last_status_code=404')).toEqual([a404]);
    expect(await ids(`failed_after=${encodeURIComponent(started)}`)).toHaveLength(3);
    expect(await ids('failed_before=2000-01-01T00:00:00Z')).toEqual([]);
    expect(
      await ids(`created_after=${encodeURIComponent(started)}&scheduled_before=2999-01-01T00:00:00Z`),
    ).toHaveLength(3);
    expect(await ids('destination_host=elsewhere.example')).toEqual([]);

    const listed = (await call('GET', `/v1/actions?search=inbox+503`)).body.data[0];
    expect(listed).toMatchObject({
      id: a503,
      destination_host: '127.0.0.1',
      last_attempt: {
        status_code: 503,
        error_class: 'http',
        at: expect.any(String),
        lateness_ms: expect.any(Number),
      },
      replay_of: null,
    });

    const bad = await call('GET', '/v1/actions?last_status_code=5x&error_class=nope&failed_after=yesterday');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['error_class', 'failed_after', 'last_status_code']);
  }, 60_000);

  it('replay: a failed action is delivered again as a new action with a new webhook-id, linked both ways', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    rx.on('/replay', (_req, hits) => ({ status: hits === 0 ? 500 : 200 }));
    const original = await call('POST', '/v1/actions', {
      name: 'to replay',
      schedule: { wait: '1s' },
      max_attempts: 1,
      webhook_secret: secret,
      request: { url: `${rx.url}/replay`, headers: { 'x-kind': 'first' }, body: { n: 1 } },
    });
    const id = original.body.data.id as string;
    await settled(id, 'failed');

    const replay = await call('POST', `/v1/actions/${id}/replay`, { request: { body: { n: 2 } } });
    expect(replay.status).toBe(201);
    expect(replay.body.data).toMatchObject({
      replay_of: id,
      name: 'to replay',
      signed: true,
      status: 'scheduled',
    });
    const replayId = replay.body.data.id as string;
    expect(replayId).not.toBe(id);
    const [first, second] = await rx.waitFor('/replay', 2, 30_000);
    expect(second!.json).toEqual({ n: 2 });
    expect(second!.headers['x-kind']).toBe('first');
    expect(second!.headers['webhook-id']).toBeTruthy();
    expect(second!.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);
    await settled(replayId, 'executed');
    expect((await action(id)).replays).toEqual([replayId]);
    expect((await action(replayId)).replay_of).toBe(id);

    const live = await call('POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/later` },
    });
    const notFinal = await call('POST', `/v1/actions/${live.body.data.id}/replay`);
    expect(notFinal.status).toBe(409);
    expect(notFinal.body.message).toContain('scheduled');
    const invalid = await call('POST', `/v1/actions/${id}/replay`, { schedule: { wait: 'soon' } });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors)).toEqual(['schedule.wait']);

    const other = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'other', '--plan', 'pro', '--json'], server.env)).stdout,
    ).api_key as string;
    expect((await api(server, other, 'POST', `/v1/actions/${id}/replay`)).status).toBe(404);
  }, 60_000);

  it('bulk retry over 300 failed actions to one host: the dry run counts and changes nothing; the run delivers each once', async () => {
    rx.on('/bulk', { status: 200 });
    const url = `${rx.url}/bulk`;
    await seedActions(db.url, {
      accountId,
      count: 300,
      status: 'failed',
      url,
      host: '127.0.0.1',
      name: 'bulk seed',
      lastAttempt: { statusCode: 503, errorClass: 'http' },
    });
    await seedActions(db.url, {
      accountId,
      count: 5,
      status: 'executed',
      url,
      host: '127.0.0.1',
      name: 'bulk seed',
    });
    await seedActions(db.url, {
      accountId,
      count: 20,
      status: 'failed',
      url: 'http://other.example/x',
      host: 'other.example',
      name: 'bulk seed',
    });
    const filter = { status: 'failed', destination_host: '127.0.0.1', search: 'bulk seed' };

    const dry = await call('POST', '/v1/bulk-operations', { operation: 'retry', filter });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({
      dry_run: true,
      operation: 'retry',
      matched: 300,
      eligible: 300,
      ineligible: {},
    });
    expect(dry.body.data.sample_ids).toHaveLength(10);
    const wider = await call('POST', '/v1/bulk-operations', {
      operation: 'retry',
      filter: { destination_host: '127.0.0.1', search: 'bulk seed' },
    });
    expect(wider.body.data).toMatchObject({ matched: 305, eligible: 300, ineligible: { executed: 5 } });
    expect(
      (await call('GET', '/v1/actions?status=failed&destination_host=127.0.0.1&search=bulk+seed&per_page=1'))
        .body.meta.total,
    ).toBe(300);
    expect(rx.to('/bulk')).toHaveLength(0);

    const run = await call('POST', '/v1/bulk-operations', {
      operation: 'retry',
      filter,
      dry_run: false,
      note: 'partner outage of 25 Nov',
    });
    expect(run.status).toBe(202);
    expect(run.body.data).toMatchObject({
      operation: 'retry',
      status: 'running',
      matched: 300,
      finished_at: null,
      created_at: expect.any(String),
    });
    for (const k of ['processed', 'affected', 'skipped', 'failed'])
      expect(run.body.data[k]).toBeTypeOf('number');
    const opId = run.body.data.id as string;
    // Created after the start: never part of it.
    await seedActions(db.url, {
      accountId,
      count: 3,
      status: 'failed',
      url,
      host: '127.0.0.1',
      name: 'bulk seed',
    });

    const done = await eventually(async () => {
      const op = (await call('GET', `/v1/bulk-operations/${opId}`)).body.data;
      return op.status === 'completed' ? op : null;
    }, 60_000);
    expect(done).toMatchObject({ matched: 300, processed: 300, affected: 300, skipped: 0, failed: 0 });
    expect(done.finished_at).toEqual(expect.any(String));

    await rx.waitFor('/bulk', 300, 60_000);
    await eventually(
      async () =>
        (await call('GET', '/v1/actions?status=executed&search=bulk+seed&per_page=1')).body.meta.total ===
        305,
      60_000,
    );
    const delivered = rx.to('/bulk');
    expect(delivered).toHaveLength(300);
    expect(new Set(delivered.map((r) => r.headers['x-sched-action-id'])).size).toBe(300);
    expect(
      (await call('GET', '/v1/actions?status=failed&destination_host=127.0.0.1&search=bulk+seed')).body.meta
        .total,
    ).toBe(3);

    const one = await action(delivered[0]!.headers['x-sched-action-id'] as string);
    expect(one.bulk_operations).toEqual([
      {
        bulk_operation_id: opId,
        operation: 'retry',
        outcome: 'affected',
        detail: null,
        note: 'partner outage of 25 Nov',
        at: expect.any(String),
      },
    ]);
    expect(one.reminder_events).toEqual([
      expect.objectContaining({
        event_type: 'retried',
        notes: `retried by bulk operation ${opId}: partner outage of 25 Nov`,
      }),
    ]);
    const list = await call('GET', '/v1/bulk-operations');
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({ id: opId, status: 'completed' });
    expect(list.body.meta).toMatchObject({ total: 1, current_page: 1 });
    expect((await call('DELETE', `/v1/bulk-operations/${opId}`)).status).toBe(409);
  }, 120_000);

  it('bulk replay by ids makes one new action per final action and names it on the timeline', async () => {
    rx.on('/bulk-replay', { status: 200 });
    const failed = (await call('GET', '/v1/actions?status=failed&search=inbox')).body.data.map(
      (a: { id: string }) => a.id,
    );
    const live = await call('POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/x` },
    });
    const run = await call('POST', '/v1/bulk-operations', {
      operation: 'replay',
      ids: [...failed, live.body.data.id],
      dry_run: false,
      replay: { schedule: { wait: '1h' } },
    });
    expect(run.status).toBe(202);
    const done = await eventually(async () => {
      const op = (await call('GET', `/v1/bulk-operations/${run.body.data.id}`)).body.data;
      return op.status === 'completed' ? op : null;
    }, 30_000);
    expect(done).toMatchObject({ matched: 4, affected: 3, skipped: 1, failed: 0 });
    const original = await action(failed[0]);
    expect(original.replays).toHaveLength(1);
    expect(original.bulk_operations[0]).toMatchObject({
      operation: 'replay',
      outcome: 'affected',
      detail: original.replays[0],
    });
    expect((await action(live.body.data.id)).bulk_operations[0]).toMatchObject({ outcome: 'skipped' });
  }, 60_000);

  it('bulk pause and resume go through the pause use case; the timeline names the operation', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await call('POST', '/v1/actions', {
        name: `hold ${i}`,
        schedule: { wait: '1h' },
        request: { url: `${rx.url}/hold` },
      });
      ids.push(res.body.data.id);
    }
    const filter = { search: 'hold', status: 'scheduled' };
    const dry = await call('POST', '/v1/bulk-operations', {
      operation: 'pause',
      filter,
      pause: { indefinite: true },
    });
    expect(dry.body.data).toMatchObject({ matched: 3, eligible: 3 });
    const paused = await call('POST', '/v1/bulk-operations', {
      operation: 'pause',
      filter,
      pause: { indefinite: true },
      dry_run: false,
      note: 'receiver down',
    });
    const finished = (id: string) =>
      eventually(async () => {
        const op = (await call('GET', `/v1/bulk-operations/${id}`)).body.data;
        return op.status === 'completed' ? op : null;
      }, 30_000);
    expect(await finished(paused.body.data.id)).toMatchObject({ matched: 3, affected: 3 });
    const one = await action(ids[0]!);
    expect(one.status).toBe('paused');
    expect(one.reminder_events.at(-1)).toMatchObject({ event_type: 'paused' });
    expect(one.reminder_events.at(-1).notes).toContain(`bulk operation ${paused.body.data.id}`);

    const resumed = await call('POST', '/v1/bulk-operations', {
      operation: 'resume',
      ids,
      resume: { missed: 'skip' },
      dry_run: false,
    });
    expect(await finished(resumed.body.data.id)).toMatchObject({ matched: 3, affected: 3 });
    expect((await action(ids[1]!)).status).toBe('scheduled');
  }, 60_000);

  it('bulk input: exactly one of filter or ids, at most 1,000 ids, options for their operation only', async () => {
    const both = await call('POST', '/v1/bulk-operations', {
      operation: 'cancel',
      filter: {},
      ids: [accountId],
    });
    expect(both.status).toBe(422);
    expect(both.body.errors.filter).toBeDefined();
    const neither = await call('POST', '/v1/bulk-operations', { operation: 'cancel' });
    expect(neither.status).toBe(422);
    const many = Array.from({ length: 1001 }, () => crypto.randomUUID());
    expect((await call('POST', '/v1/bulk-operations', { operation: 'cancel', ids: many })).status).toBe(422);
    const unknownKey = await call('POST', '/v1/bulk-operations', {
      operation: 'cancel',
      filter: { colour: 'red' },
    });
    expect(unknownKey.status).toBe(422);
    const noPause = await call('POST', '/v1/bulk-operations', {
      operation: 'pause',
      filter: { status: 'scheduled' },
    });
    expect(noPause.status).toBe(422);
    expect(noPause.body.errors.pause).toBeDefined();
    const badPause = await call('POST', '/v1/bulk-operations', {
      operation: 'pause',
      filter: {},
      pause: { duration: 'a while' },
    });
    expect(badPause.status).toBe(422);
    const wrongPart = await call('POST', '/v1/bulk-operations', {
      operation: 'cancel',
      ids: [accountId],
      resume: {},
    });
    expect(wrongPart.status).toBe(422);
    expect(wrongPart.body.errors.resume).toBeDefined();
    expect((await call('GET', `/v1/bulk-operations/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it('SDK and CLI: actions.replay, bulkOperations with a wait for completion, `sched bulk` dry run then --yes', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    rx.on('/sdk', { status: 404 });
    const created = await sched.actions.create({
      name: 'sdk failing',
      schedule: { wait: '1s' },
      max_attempts: 1,
      request: { url: `${rx.url}/sdk` },
    });
    const id = created.action.id;
    await settled(id, 'failed');
    const replay = await sched.actions.replay(id, { schedule: { wait: '1h' } });
    expect(replay.replay_of).toBe(id);

    const dry = await sched.bulkOperations.create({ operation: 'cancel', ids: [replay.id] });
    expect(dry).toMatchObject({ dry_run: true, matched: 1, eligible: 1 });
    const started = await sched.bulkOperations.start({ operation: 'cancel', ids: [replay.id] });
    const seen: number[] = [];
    const done = await sched.bulkOperations.waitForCompletion(started.id, {
      intervalMs: 100,
      onProgress: (op) => seen.push(op.processed),
    });
    expect(done).toMatchObject({ status: 'completed', affected: 1 });
    expect(seen.at(-1)).toBe(1);
    expect((await sched.bulkOperations.list()).data[0]!.id).toBe(started.id);
    expect((await sched.actions.get(replay.id)).status).toBe('cancelled');

    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    await seedActions(db.url, {
      accountId,
      count: 12,
      status: 'scheduled',
      url: `${rx.url}/cli`,
      host: 'cli.example',
    });
    const preview = await runCli(
      ['bulk', 'cancel', '--destination-host', 'cli.example', '--status', 'scheduled'],
      env,
    );
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('dry run: cancel would change 12 of 12 matched actions');
    expect(preview.stdout).toContain('--yes --expect 12');
    expect(preview.stdout.match(/^ {2}[0-9a-f-]{36}$/gm)).toHaveLength(10);
    // A start carrying a smaller count than the filter now matches is refused, and nothing changes.
    const grown = await runCli(
      ['bulk', 'cancel', '--destination-host', 'cli.example', '--yes', '--expect', '11'],
      env,
    );
    expect(grown.code).toBe(1);
    expect(grown.stderr).toContain('error [conflict]');
    expect(grown.stderr).toContain('more than expected_matched (11)');
    expect(
      (await call('GET', '/v1/actions?destination_host=cli.example&status=scheduled')).body.meta.total,
    ).toBe(12);

    const run = await runCli(
      ['bulk', 'cancel', '--destination-host', 'cli.example', '--note', 'cli', '--yes'],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\[#{30}\] {2}12\/12 {2}affected 12 {2}skipped 0 {2}failed 0$/m);
    expect(run.stdout).toMatch(/completed: cancel processed 12 of 12 \(affected 12, skipped 0, failed 0\)/);
    expect(
      (await call('GET', '/v1/actions?destination_host=cli.example&status=cancelled')).body.meta.total,
    ).toBe(12);

    const inbox = await runCli(
      [
        'actions',
        'list',
        '--destination-host',
        'cli.example',
        '--status',
        'cancelled',
        '--per-page',
        '1',
        '--json',
      ],
      env,
    );
    expect(inbox.code).toBe(0);
    expect(JSON.parse(inbox.stdout).meta.total).toBe(12);
    const failedHere = await runCli(
      ['actions', 'list', '--error-class', 'http', '--last-status-code', '404', '--json'],
      env,
    );
    expect(JSON.parse(failedHere.stdout).data.map((a: { id: string }) => a.id)).toContain(id);
    const replayed = await runCli(['actions', 'replay', id, '--in', '1h', '--json'], env);
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout).data.replay_of).toBe(id);
    const usage = await runCli(['bulk', 'retry'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--ids');
  }, 90_000);
});
