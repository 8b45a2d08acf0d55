import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { workAhead } from '../support/jobs.js';
import { sqlValue } from '../support/seed.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { createClient } from '@sched/sdk';
import { api, runCli, startServer, type TestServer } from '../support/server.js';
import { pastInstant } from '../support/wait.js';

const MINUTE = 60_000;
/** `HH:MM` of an instant in UTC. */
const clockOf = (ms: number) => new Date(ms).toISOString().slice(11, 16);

// Delivery windows, reschedule and run now, calendars and the preview, end to end: a real server subprocess, real
// loopback receivers, real minutes (a window edge is a wall time: SCHED_TIME_SCALE does not move it).
describe('delivery windows, reschedule and run now', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let key: string;

  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);
  const get = async (id: string) => (await call('GET', `/v1/actions/${id}`)).body.data;
  const hook = (path: string) => ({ url: `${rx.url}${path}`, method: 'POST', body: { path } });

  beforeAll(async () => {
    db = await createTestDatabase('windows');
    rx = await startReceiver();
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  // Created first and checked last: the window opens at the next full UTC minute at least 5 s away (the create must
  // reach the server before it: a run saw one arrive 61 ms into the minute, inside the window), up to 65 s away, and
  // the tests between run meanwhile.
  let windowed: { id: string; opens: number } | null = null;
  it('a webhook due now with a window opening at the next full minute is deferred to it, and says why', async () => {
    const now = Date.now();
    const opens = Math.ceil((now + 5_000) / MINUTE) * MINUTE;
    const res = await call('POST', '/v1/actions', {
      scheduled_for: new Date(now).toISOString(),
      request: hook('/windowed'),
      delivery_window: { timezone: 'UTC', start: clockOf(opens), end: clockOf(opens + 2 * MINUTE) },
    });
    expect(res.status).toBe(201);
    const a = res.body.data;
    expect(a.delivery_window).toEqual({
      timezone: 'UTC',
      start: clockOf(opens),
      end: clockOf(opens + 2 * MINUTE),
      outside: 'defer',
    });
    expect(a.next_attempt_at).toBe(new Date(opens).toISOString());
    expect(a.deferred_by_window.to).toBe(new Date(opens).toISOString());
    expect(Date.parse(a.deferred_by_window.from)).toBeLessThan(opens);
    expect(Math.abs(Date.parse(a.deferred_by_window.from) - now)).toBeLessThan(5_000);
    windowed = { id: a.id, opens };
  });

  it('refuses a bad window with dotted paths and a stable code, and creates nothing', async () => {
    const before = (await call('GET', '/v1/actions')).body.meta.total;
    const bad = await call('POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: hook('/never'),
      delivery_window: { start: '25:00', end: '17:00', days: ['mon', 'funday'], calendar: 'holidays:ZZ' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('validation_failed');
    expect(Object.keys(bad.body.errors).sort()).toEqual(['delivery_window.days.1', 'delivery_window.start']);
    const region = await call('POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: hook('/never'),
      delivery_window: { start: '09:00', end: '17:00', calendar: 'holidays:ZZ' },
    });
    expect(region.status).toBe(422);
    expect(Object.keys(region.body.errors)).toEqual(['delivery_window.calendar']);
    expect((await call('GET', '/v1/actions')).body.meta.total).toBe(before);
  });

  it('reschedule moves a pending action: its old due time passes with no delivery, it arrives at the new one', async () => {
    const due = Date.now() + 1_500;
    const created = await call('POST', '/v1/actions', {
      scheduled_for: new Date(due).toISOString(),
      request: hook('/moved'),
    });
    const id = created.body.data.id;
    const later = due + 2_500;
    const moved = await call('POST', `/v1/actions/${id}/reschedule`, {
      scheduled_for: new Date(later).toISOString(),
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({
      id,
      status: 'scheduled',
      scheduled_for: new Date(later).toISOString(),
      next_attempt_at: new Date(later).toISOString(),
    });
    await pastInstant(due, 300);
    expect(rx.to('/moved')).toEqual([]);
    const [hit] = await rx.waitFor('/moved');
    expect(hit!.at).toBeGreaterThanOrEqual(later - 5);
    expect(hit!.at - later).toBeLessThan(1_000);
    await eventually(async () => (await get(id)).status === 'executed');
  });

  it('reschedule takes the create rules: one of schedule or scheduled_for, within the horizon; 422 changes nothing', async () => {
    const created = await call('POST', '/v1/actions', { schedule: { wait: '1h' }, request: hook('/rules') });
    const id = created.body.data.id;
    const none = await call('POST', `/v1/actions/${id}/reschedule`, {});
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.errors)).toEqual(['schedule']);
    const far = await call('POST', `/v1/actions/${id}/reschedule`, { schedule: { wait: '5000d' } });
    expect(far.status).toBe(422);
    expect(Object.keys(far.body.errors)).toEqual(['schedule.wait']);
    expect((await get(id)).scheduled_for).toBe(created.body.data.scheduled_for);
    const preset = await call('POST', `/v1/actions/${id}/reschedule`, { schedule: { wait: '2h' } });
    expect(preset.status).toBe(200);
    expect(Date.parse(preset.body.data.scheduled_for) - Date.now()).toBeGreaterThan(119 * MINUTE);
  });

  it('run now delivers a pending action within a second; both verbs answer 409 once it is executed', async () => {
    const created = await call('POST', '/v1/actions', { schedule: { wait: '1h' }, request: hook('/now') });
    const id = created.body.data.id;
    const asked = Date.now();
    const ran = await call('POST', `/v1/actions/${id}/run`, {});
    expect(ran.status).toBe(200);
    expect(ran.body.data.status).toBe('resolved');
    const [hit] = await rx.waitFor('/now');
    expect(hit!.at - asked).toBeLessThan(1_000);
    await eventually(async () => (await get(id)).status === 'executed');
    const again = await call('POST', `/v1/actions/${id}/run`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    const moved = await call('POST', `/v1/actions/${id}/reschedule`, { schedule: { wait: '1h' } });
    expect(moved.status).toBe(409);
    expect(moved.body.code).toBe('conflict');
  });

  it('run now honours the window unless ignore_window: true', async () => {
    // A window that opened an hour ago and closed a minute ago (UTC): closed now, next open tomorrow.
    const now = Date.now();
    const window = { timezone: 'UTC', start: clockOf(now - 60 * MINUTE), end: clockOf(now - MINUTE) };
    const created = await call('POST', '/v1/actions', {
      schedule: { wait: '3d' },
      request: hook('/closed'),
      delivery_window: window,
    });
    const id = created.body.data.id;
    const held = await call('POST', `/v1/actions/${id}/run`, {});
    expect(held.status).toBe(200);
    const opening = Date.parse(held.body.data.next_attempt_at);
    expect(opening - now).toBeGreaterThan(22 * 60 * MINUTE);
    expect(held.body.data.deferred_by_window.to).toBe(held.body.data.next_attempt_at);
    expect(await workAhead(db.url, [id])).toBe(1);
    expect(rx.to('/closed')).toEqual([]);
    const asked = Date.now();
    const forced = await call('POST', `/v1/actions/${id}/run`, { ignore_window: true });
    expect(forced.status).toBe(200);
    expect(forced.body.data.deferred_by_window).toBeNull();
    const [hit] = await rx.waitFor('/closed');
    expect(hit!.at - asked).toBeLessThan(1_000);
  });

  it("reschedule and run on another account's action answer 404, and both are in the audit log", async () => {
    const created = await call('POST', '/v1/actions', { schedule: { wait: '1h' }, request: hook('/mine') });
    const id = created.body.data.id;
    const other = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'intruder', '--plan', 'business', '--json'], server.env))
        .stdout,
    ).api_key as string;
    expect((await api(server, other, 'POST', `/v1/actions/${id}/run`, {})).status).toBe(404);
    expect(
      (await api(server, other, 'POST', `/v1/actions/${id}/reschedule`, { schedule: { wait: '2h' } })).status,
    ).toBe(404);
    expect((await call('POST', `/v1/actions/${id}/reschedule`, { schedule: { wait: '2h' } })).status).toBe(
      200,
    );
    expect((await call('POST', `/v1/actions/${id}/run`, {})).status).toBe(200);
    const events = await eventually(async () => {
      const log = (await call('GET', `/v1/audit-events?resource_id=${id}`)).body.data as { action: string }[];
      const names = log.map((e) => e.action);
      return names.includes('action.run') && names.includes('action.reschedule') ? names : null;
    });
    expect(events).toEqual(expect.arrayContaining(['action.reschedule', 'action.run']));
  });

  it('the preview shows each run where it fires: a holidays:US series skips 2027-07-05', async () => {
    const res = await call('POST', '/v1/schedules/preview', {
      scheduled_for: '2027-07-02T10:00:00-04:00',
      timezone: 'America/New_York',
      recurrence: { frequency: 1, unit: 'd', end_type: 'never' },
      delivery_window: { start: '09:00', end: '17:00', calendar: 'holidays:US', outside: 'skip' },
      count: 3,
    });
    expect(res.status).toBe(200);
    const runs = res.body.data.occurrences.map((o: { local: string; window?: string }) => [
      o.local,
      o.window ?? null,
    ]);
    expect(runs).toEqual([
      ['2027-07-02T10:00:00', null],
      ['2027-07-03T10:00:00', null],
      ['2027-07-04T10:00:00', 'skipped'],
      ['2027-07-05T10:00:00', 'skipped'],
      ['2027-07-06T10:00:00', null],
    ]);
    expect(res.body.data.warnings).toContain(
      '2027-07-05T10:00 America/New_York is outside the delivery window (2027-07-05 is a closed day of holidays:US); skipped',
    );
  });

  it('calendars: create, read, list, update, closed days, 404 for another account, delete; audited', async () => {
    const bad = await call('POST', '/v1/calendars', { name: 'x', timezone: 'Nowhere/City', holidays: 'ZZ' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['holidays', 'timezone']);
    const created = await call('POST', '/v1/calendars', {
      name: 'Office',
      timezone: 'America/New_York',
      dates: ['2026-12-24', '2026-12-24', '2026-12-23'],
      holidays: 'us',
    });
    expect(created.status).toBe(201);
    const cal = created.body.data;
    expect(cal).toMatchObject({ name: 'Office', dates: ['2026-12-23', '2026-12-24'], holidays: 'US' });
    expect((await call('GET', `/v1/calendars/${cal.id}`)).body.data).toEqual(cal);
    const list = await call('GET', '/v1/calendars?per_page=1');
    expect(list.body.meta).toMatchObject({ total: 1, per_page: 1, current_page: 1, last_page: 1 });
    const days = await call('GET', `/v1/calendars/${cal.id}/days?from=2026-12-20&to=2027-01-02`);
    expect(days.status).toBe(200);
    expect(days.body.data).toEqual([
      { date: '2026-12-23', source: 'dates', name: null },
      { date: '2026-12-24', source: 'dates', name: null },
      { date: '2026-12-25', source: 'holidays', name: 'Christmas Day' },
      { date: '2027-01-01', source: 'holidays', name: "New Year's Day" },
    ]);
    const updated = await call('PUT', `/v1/calendars/${cal.id}`, {
      holidays: null,
      name: 'Office (own days)',
    });
    expect(updated.body.data).toMatchObject({ holidays: null, name: 'Office (own days)' });

    // A window naming it: a Thursday 2026-12-24 10:00 New York due time moves to Monday 28th 09:00.
    const action = await call('POST', '/v1/actions', {
      scheduled_for: '2026-12-24T10:00:00-05:00',
      timezone: 'America/New_York',
      request: hook('/calendar'),
      delivery_window: {
        days: ['mon', 'tue', 'wed', 'thu', 'fri'],
        start: '09:00',
        end: '17:00',
        calendar: cal.id,
      },
    });
    expect(action.status).toBe(201);
    // 12-24 is closed; 12-25 is no longer (its holidays were removed), a Friday: it opens then.
    expect(action.body.data.next_attempt_at).toBe('2026-12-25T14:00:00.000Z');

    const other = JSON.parse(
      (
        await runCli(
          ['accounts', 'create', '--name', 'cal-intruder', '--plan', 'business', '--json'],
          server.env,
        )
      ).stdout,
    ).api_key as string;
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['GET', '/days?from=2026-12-01&to=2026-12-31', undefined],
      ['PUT', '', { name: 'stolen' }],
      ['DELETE', '', undefined],
    ] as const)
      expect((await api(server, other, method, `/v1/calendars/${cal.id}${path}`, body)).status).toBe(404);
    const foreign = await api(server, other, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: hook('/foreign'),
      delivery_window: { start: '09:00', end: '17:00', calendar: cal.id },
    });
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.errors)).toEqual(['delivery_window.calendar']);

    expect((await call('DELETE', `/v1/calendars/${cal.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/calendars/${cal.id}`)).status).toBe(404);
    const names = await eventually(async () => {
      const log = (await call('GET', `/v1/audit-events?resource_id=${cal.id}`)).body.data as {
        action: string;
      }[];
      return log.length >= 3 ? log.map((e) => e.action) : null;
    });
    expect(names).toEqual(expect.arrayContaining(['calendar.create', 'calendar.update', 'calendar.delete']));
  });

  it('the SDK and the CLI reach calendars, reschedule, run and the windowed preview', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: key });
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const cal = await sched.calendars.create({ name: 'SDK', dates: ['2027-01-04'], holidays: 'GB-ENG' });
    expect((await sched.calendars.days(cal.id, { from: '2027-01-01', to: '2027-01-05' })).data).toEqual([
      { date: '2027-01-01', source: 'holidays', name: "New Year's Day" },
      { date: '2027-01-04', source: 'dates', name: null },
    ]);
    expect((await sched.calendars.listAll()).map((c) => c.id)).toContain(cal.id);

    const made = await runCli(
      ['calendars', 'create', '--name', 'CLI', '--date', '2027-02-01', '--holidays', 'US', '--json'],
      env,
    );
    expect(made.code).toBe(0);
    const cliCal = JSON.parse(made.stdout).data;
    const days = await runCli(
      ['calendars', 'days', cliCal.id, '--from', '2027-01-30', '--to', '2027-02-01'],
      env,
    );
    expect(days.stdout).toMatch(/2027-02-01\s+dates/);
    const bad = await runCli(['calendars', 'create', '--name', 'x', '--holidays', 'ZZ'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('holidays');

    const createdBySdk = await sched.actions.create({
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/sdk-run`, method: 'POST' },
    });
    if (createdBySdk.skipped) throw new Error('the create was skipped');
    const pending = createdBySdk.action;
    const moved = await sched.actions.reschedule(pending.id, { schedule: { wait: '2h' } });
    expect(Date.parse(moved.next_attempt_at!) - Date.parse(pending.next_attempt_at!)).toBeGreaterThan(
      59 * MINUTE,
    );
    const cliMoved = await runCli(['actions', 'reschedule', pending.id, '--in', '3h'], env);
    expect(cliMoved.code).toBe(0);
    expect(cliMoved.stdout).toContain(`rescheduled ${pending.id}`);
    const ran = await runCli(['actions', 'run', pending.id], env);
    expect(ran.stdout).toContain(`running ${pending.id}`);
    await rx.waitFor('/sdk-run');
    await eventually(async () => (await sched.actions.get(pending.id)).status === 'executed');
    await expect(sched.actions.run(pending.id)).rejects.toMatchObject({ status: 409, code: 'conflict' });

    const preview = await runCli(
      [
        'schedule',
        'preview',
        '--at',
        '2027-07-02T14:00:00Z',
        '--every',
        '1d',
        '--count',
        '3',
        '--window',
        '09:00-17:00',
        '--window-timezone',
        'America/New_York',
        '--window-calendar',
        'holidays:US',
        '--window-outside',
        'skip',
      ],
      env,
    );
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/2027-07-05T14:00:00.000Z.*skipped/);
    const created = await runCli(
      [
        'actions',
        'create',
        '--url',
        `${rx.url}/cli-window`,
        '--in',
        '1h',
        '--window',
        '09:00-17:00',
        '--window-days',
        'mon,tue',
        '--json',
      ],
      env,
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).data.delivery_window).toEqual({
      timezone: 'UTC',
      days: ['mon', 'tue'],
      start: '09:00',
      end: '17:00',
      outside: 'defer',
    });
  });

  it('bulk operations reschedule pending actions by an offset and run them now', async () => {
    const ids: string[] = [];
    const due: number[] = [];
    for (const path of ['/bulk-1', '/bulk-2']) {
      const a = (await call('POST', '/v1/actions', { schedule: { wait: '1h' }, request: hook(path) })).body
        .data;
      ids.push(a.id);
      due.push(Date.parse(a.next_attempt_at));
    }
    const missing = await call('POST', '/v1/bulk-operations', {
      operation: 'reschedule',
      ids,
      dry_run: false,
    });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(['reschedule']);
    const dry = await call('POST', '/v1/bulk-operations', {
      operation: 'reschedule',
      ids,
      reschedule: { offset: '90m' },
    });
    expect(dry.body.data).toMatchObject({ dry_run: true, matched: 2, eligible: 2 });
    const finished = async (id: string) =>
      eventually(async () => {
        const op = (await call('GET', `/v1/bulk-operations/${id}`)).body.data;
        return op.status === 'completed' ? op : null;
      });
    const moved = await call('POST', '/v1/bulk-operations', {
      operation: 'reschedule',
      ids,
      reschedule: { offset: '90m' },
      dry_run: false,
    });
    expect(moved.status).toBe(202);
    expect(await finished(moved.body.data.id)).toMatchObject({ affected: 2, failed: 0 });
    for (const [i, id] of ids.entries())
      expect(Date.parse((await get(id)).next_attempt_at)).toBe(due[i]! + 90 * MINUTE);

    const asked = Date.now();
    const ran = await call('POST', '/v1/bulk-operations', { operation: 'run', ids, dry_run: false });
    expect(ran.status).toBe(202);
    expect(await finished(ran.body.data.id)).toMatchObject({ affected: 2 });
    const [one] = await rx.waitFor('/bulk-1');
    const [two] = await rx.waitFor('/bulk-2');
    expect(Math.max(one!.at, two!.at) - asked).toBeLessThan(5_000);
  });

  it('templates and chain steps carry a delivery window (no placeholders in it); their actions wait for it', async () => {
    const now = Date.now();
    // Closed now: opened an hour ago, closed a minute ago (UTC), so the next opening is about a day away.
    const closed = { timezone: 'UTC', start: clockOf(now - 60 * MINUTE), end: clockOf(now - MINUTE) };
    const placeholder = await call('POST', '/v1/templates', {
      name: 'windowed',
      mode: 'webhook',
      request_config: { url: `${rx.url}/tpl`, method: 'POST' },
      delivery_window: { start: '{{start}}', end: '17:00' },
    });
    expect(placeholder.status).toBe(422);
    expect(Object.keys(placeholder.body.errors)).toEqual(['delivery_window.start']);
    const tpl = await call('POST', '/v1/templates', {
      name: 'windowed',
      mode: 'webhook',
      request_config: { url: `${rx.url}/tpl`, method: 'POST' },
      delivery_window: closed,
    });
    expect(tpl.status).toBe(201);
    expect(tpl.body.data.delivery_window).toEqual(closed);
    const fired = await fetch(`${server.url}${new URL(tpl.body.data.trigger_url).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(fired.status).toBe(201);
    const made = await get(((await fired.json()) as { data: { id: string } }).data.id);
    expect(made.delivery_window).toMatchObject({ ...closed, outside: 'defer' });
    expect(Date.parse(made.next_attempt_at) - now).toBeGreaterThan(22 * 60 * MINUTE);

    const chain = await call('POST', '/v1/chains', {
      name: 'windowed chain',
      steps: [
        { name: 'call', type: 'http_call', url: `${rx.url}/chain-step`, delivery_window: closed },
        { name: 'then', type: 'delay', delay: '1s' },
      ],
    });
    expect(chain.status).toBe(201);
    expect(chain.body.data.steps[0].definition?.delivery_window ?? closed).toEqual(closed);
    const due = await eventually(() =>
      sqlValue<Date | null>(db.url, 'select next_attempt_at from actions where chain_id = $1', [
        chain.body.data.id,
      ]),
    );
    expect(due.getTime() - now).toBeGreaterThan(22 * 60 * MINUTE);
    expect(rx.to('/chain-step')).toEqual([]);
  });

  it('the windowed webhook arrived within 2 s after its minute started, never before', async () => {
    const { id, opens } = windowed!;
    const [hit] = await rx.waitFor('/windowed', 1, opens - Date.now() + 10_000);
    expect(hit!.at).toBeGreaterThanOrEqual(opens);
    expect(hit!.at - opens).toBeLessThan(2_000);
    const done = await eventually(async () => {
      const a = await get(id);
      return a.status === 'executed' ? a : null;
    });
    expect(done.deferred_by_window).toBeNull();
  }, 90_000);
});
