import { createClient, type SchedClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// Schedule preview and the DST policy end to end, and the SDK and CLI ways into them and into pause/resume. The
// server runs at SCHED_TIME_SCALE=300: the preview must still show calendar times.
describe('schedule preview and DST policy', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let key: string;
  let sched: SchedClient;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase('schedules');
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
    // A business account: its 365-day horizon reaches March 2027.
    const account = await runCli(
      ['accounts', 'create', '--name', 'biz', '--plan', 'business', '--json'],
      server.env,
    );
    key = JSON.parse(account.stdout).api_key as string;
    sched = createClient({ baseUrl: server.url, apiKey: key });
    env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  const series = {
    scheduled_for: '2027-03-12T02:30:00-05:00',
    timezone: 'America/New_York',
    recurrence: { frequency: 1, unit: 'd', end_type: 'never' },
  } as const;

  it('the preview of a daily 02:30 New York series over 2027-03-14 reports the gap by the policy', async () => {
    const res = await api(server, key, 'POST', '/v1/schedules/preview', { ...series, count: 4 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      timezone: 'America/New_York',
      tzdata: process.versions.tz,
      occurrences: [
        // Calendar days apart, although the server runs at SCHED_TIME_SCALE=300.
        { at: '2027-03-12T07:30:00.000Z', local: '2027-03-12T02:30:00', offset: '-05:00', dst: null },
        { at: '2027-03-13T07:30:00.000Z', local: '2027-03-13T02:30:00', offset: '-05:00', dst: null },
        {
          at: '2027-03-14T07:30:00.000Z',
          local: '2027-03-14T03:30:00',
          offset: '-04:00',
          dst: 'gap_shifted',
        },
        { at: '2027-03-15T06:30:00.000Z', local: '2027-03-15T02:30:00', offset: '-04:00', dst: null },
      ],
      warnings: ['2027-03-14T02:30 does not exist in America/New_York; shifted to 03:30'],
    });

    const skip = await api(server, key, 'POST', '/v1/schedules/preview', {
      ...series,
      dst_policy: { gap: 'skip', fold: 'first' },
      count: 3,
    });
    expect(skip.body.data.occurrences.map((o: any) => [o.local, o.dst])).toEqual([
      ['2027-03-12T02:30:00', null],
      ['2027-03-13T02:30:00', null],
      ['2027-03-14T02:30:00', 'gap_skipped'],
      ['2027-03-15T02:30:00', null],
    ]);
    expect(skip.body.data.warnings).toEqual(['2027-03-14T02:30 does not exist in America/New_York; skipped']);
    const forward = await sched.schedules.preview({
      ...series,
      dst_policy: { gap: 'shift_forward' },
      count: 3,
    });
    expect(forward.occurrences[2]).toMatchObject({ at: '2027-03-14T07:00:00.000Z', dst: 'gap_shifted' });
    expect((await sched.schedules.preview({ schedule: { wait: '1h' } })).occurrences).toHaveLength(1);
  });

  it('answers 422 with dotted paths for bad schedule fields and counts', async () => {
    for (const [body, field] of [
      [{ ...series, count: 0 }, 'count'],
      [{ ...series, count: 101 }, 'count'],
      [{ ...series, timezone: 'Mars/Olympus' }, 'timezone'],
      [{ ...series, recurrence: { frequency: 1, unit: 'x', end_type: 'never' } }, 'recurrence.unit'],
      [{ ...series, dst_policy: { gap: 'sideways' } }, 'dst_policy.gap'],
      [{ timezone: 'UTC' }, 'schedule'],
    ] as const) {
      const res = await api(server, key, 'POST', '/v1/schedules/preview', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
  });

  it('dst_policy is stored and shown on create, and a series detail lists its next 5 runs by it', async () => {
    const created = await api(server, key, 'POST', '/v1/actions', {
      ...series,
      dst_policy: { gap: 'skip', fold: 'both' },
      request: { url: 'http://127.0.0.1:9/never' },
    });
    expect(created.status).toBe(201);
    const action = (await api(server, key, 'GET', `/v1/actions/${created.body.data.id}`)).body.data;
    expect(action.dst_policy).toEqual({ gap: 'skip', fold: 'both' });
    expect(action.recurrence).toEqual({ frequency: 1, unit: 'd', end_type: 'never' });
    // The same runs as the preview (the gap night left out), placed in real time by the server's time scale.
    const preview = await sched.schedules.preview({
      ...series,
      dst_policy: { gap: 'skip', fold: 'both' },
      count: 5,
    });
    const anchor = Date.parse(action.scheduled_for);
    const runs = preview.occurrences.filter((o) => o.dst !== 'gap_skipped');
    expect(action.next_occurrences).toEqual(
      runs.map((o) => new Date(anchor + Math.round((Date.parse(o.at) - anchor) / 300)).toISOString()),
    );
    const oneTime = (
      await api(server, key, 'POST', '/v1/actions', {
        schedule: { wait: '1h' },
        request: { url: 'http://127.0.0.1:9/never' },
      })
    ).body.data;
    expect(oneTime).toMatchObject({ dst_policy: null, next_occurrences: [] });
    await sched.actions.cancel(action.id);
  });

  it('SDK and CLI: pause, resume and preview', async () => {
    const { action } = (await sched.actions.create({
      schedule: { wait: '1h' },
      request: { url: 'http://127.0.0.1:9/never' },
    })) as { action: { id: string } };
    const paused = await sched.actions.pause(action.id, { duration: '2h', note: 'by the SDK' });
    expect(paused).toMatchObject({ status: 'paused', pause: { note: 'by the SDK' } });
    const resumed = await sched.actions.resume(action.id);
    expect(resumed.status).toBe('scheduled');

    const cliPause = await runCli(['actions', 'pause', action.id, '--note', 'from the CLI'], env);
    expect(cliPause.code, cliPause.stderr).toBe(0);
    expect(cliPause.stdout).toContain(`paused ${action.id}`);
    expect(cliPause.stdout).toContain('until resumed');
    const shown = await runCli(['actions', 'get', action.id], env);
    expect(shown.stdout).toMatch(/paused\s+since .*until resumed: from the CLI/);
    const twice = await runCli(['actions', 'pause', action.id, '--duration', '1h'], env);
    expect(twice.code).not.toBe(0);
    expect(twice.stderr).toContain('already paused');
    const cliResume = await runCli(['actions', 'resume', action.id, '--missed', 'skip', '--json'], env);
    expect(cliResume.code, cliResume.stderr).toBe(0);
    expect(JSON.parse(cliResume.stdout).data.status).toBe('scheduled');

    const preview = await runCli(
      [
        'schedule',
        'preview',
        '--at',
        '2027-03-12T02:30:00-05:00',
        '--timezone',
        'America/New_York',
        '--every',
        '1d',
        '--count',
        '3',
      ],
      env,
    );
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('2027-03-14T03:30:00');
    expect(preview.stdout).toContain('gap_shifted');
    expect(preview.stdout).toContain(
      'warning: 2027-03-14T02:30 does not exist in America/New_York; shifted to 03:30',
    );
    const json = await runCli(
      [
        'schedule',
        'preview',
        '--at',
        '2027-03-13T02:30:00-05:00',
        '--timezone',
        'America/New_York',
        '--every',
        '1d',
        '--dst-gap',
        'skip',
        '--count',
        '2',
        '--json',
      ],
      env,
    );
    expect(JSON.parse(json.stdout).data.occurrences.map((o: any) => o.dst)).toEqual([
      null,
      'gap_skipped',
      null,
    ]);
  });
});
