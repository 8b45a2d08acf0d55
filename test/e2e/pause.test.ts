import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { workAhead } from '../support/jobs.js';
import { linkIn } from '../support/peers.js';
import { api, runCli, type TestServer } from '../support/server.js';
import { eventually, pastInstant } from '../support/wait.js';

// Pause and resume end to end: a real server subprocess and a loopback receiver. SCHED_TIME_SCALE=300 makes a
// 5-minute recurrence one second and a 10-minute gate timeout two seconds; pauses' own durations are the caller's
// and never scaled.
describe('pause and resume', () => {
  let svc: ApprovalServer;
  let db: ApprovalServer['db'];
  let server: TestServer;
  let rx: ApprovalServer['rx'];
  let smtp: ApprovalServer['smtp'];
  let key: string;

  const create = (body: Record<string, unknown>) => api(server, key, 'POST', '/v1/actions', body);
  const pause = (id: string, body: unknown) => api(server, key, 'POST', `/v1/actions/${id}/pause`, body);
  const resume = (id: string, body?: unknown) => api(server, key, 'POST', `/v1/actions/${id}/resume`, body);
  /** Until no work is left for the action (its due attempt or timer fired, or none was ahead). */
  const noJobsLeft = (id: string, kind?: string) =>
    eventually(async () => (await workAhead(db.url, [id], kind)) === 0);

  beforeAll(async () => {
    svc = await startApprovalServer('pause', { timeScale: 300 });
    ({ db, server, rx, smtp, key } = svc);
  });
  afterAll(() => svc?.stop());

  it('a paused action whose moment passes is not delivered; resumed, it is delivered once', async () => {
    // Far enough ahead that the pause lands first even on a loaded machine.
    const due = new Date(Date.now() + 2500);
    const res = await create({
      scheduled_for: due.toISOString(),
      request: { url: `${rx.url}/held` },
      callback_url: `${rx.url}/cb-held`,
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    const paused = await pause(id, { indefinite: true, note: 'partner outage' });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({
      status: 'paused',
      next_attempt_at: null,
      pause: { until: null, note: 'partner outage' },
    });
    expect(
      (await api(server, key, 'GET', '/v1/actions?status=paused')).body.data.map((a: any) => a.id),
    ).toContain(id);
    // Its moment passes with nothing due for it (a claim takes only scheduled and resolved actions): nothing is sent.
    await pastInstant(due.getTime());
    await noJobsLeft(id);
    expect(rx.to('/held')).toHaveLength(0);
    expect((await svc.get(id)).status).toBe('paused');

    const resumed = await resume(id);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ status: 'scheduled', pause: null });
    await rx.waitFor('/held', 1);
    const done = await svc.until(id, 'executed');
    await noJobsLeft(id);
    expect(rx.to('/held')).toHaveLength(1);
    expect(done.delivery_attempts).toHaveLength(1);
    // The timeline keeps both, with the note; the callbacks say the same.
    expect(done.reminder_events.map((e: any) => e.event_type)).toEqual(['paused', 'resumed']);
    expect(done.reminder_events[0].notes).toContain('partner outage');
    expect(done.reminder_events[1].notes).toContain('missed: run_once');
    const callbacks = await rx.waitFor('/cb-held', 3);
    // Each callback is its own job: they may arrive in any order.
    expect(callbacks.map((c) => c.json.event).sort()).toEqual([
      'action.executed',
      'action.paused',
      'action.resumed',
    ]);
    expect(callbacks.find((c) => c.json.event === 'action.paused')!.json.payload).toMatchObject({
      status: 'paused',
      note: 'partner outage',
    });
    expect(callbacks.find((c) => c.json.event === 'action.resumed')!.json.payload).toMatchObject({
      status: 'scheduled',
      missed: 'run_once',
    });
  });

  it('a pause with a duration resumes by itself (a durable job) and the action is delivered once', async () => {
    const res = await create({ schedule: { wait: '2s' }, request: { url: `${rx.url}/auto` } });
    const id = res.body.data.id as string;
    const paused = await pause(id, { duration: '3s' });
    expect(paused.status).toBe(200);
    const resumeAt = new Date(paused.body.data.pause.until).getTime();
    expect(resumeAt - Date.now()).toBeGreaterThan(1500);
    // Not before the pause ends.
    const [hit] = await rx.waitFor('/auto', 1);
    expect(hit!.at).toBeGreaterThanOrEqual(resumeAt - 50);
    const done = await svc.until(id, 'executed');
    expect(done.reminder_events.map((e: any) => e.event_type)).toEqual(['paused', 'resumed']);
    expect(done.reminder_events[1].notes).toContain('by its until');
    await noJobsLeft(id);
    expect(rx.to('/auto')).toHaveLength(1);
  });

  /** A series every 5 minutes (one second here), paused after its first run across two more of them. */
  async function pausedSeries(path: string) {
    const res = await create({
      schedule: { wait: '1s' },
      recurrence: { frequency: 5, unit: 'm', end_type: 'never' },
      request: { url: `${rx.url}/${path}` },
    });
    const id = res.body.data.id as string;
    await rx.waitFor(`/${path}`, 1);
    // Paused between runs (a run in flight answers 409: paused as soon as it is over).
    const paused = await eventually(async () => {
      const r = await pause(id, { indefinite: true });
      return r.status === 200 ? r : null;
    });
    const before = paused.body.data;
    const hits = rx.to(`/${path}`).length;
    // Two occurrences pass, their jobs finding it paused: nothing is sent.
    await pastInstant(Date.parse(before.pause.paused_at), 2 * 1000);
    await noJobsLeft(id);
    expect(rx.to(`/${path}`)).toHaveLength(hits);
    return { id, before, hits };
  }

  it('a series resumed with run_once runs the missed occurrence once, then carries on its schedule', async () => {
    const { id, before, hits } = await pausedSeries('series-once');
    const resumedAt = Date.now();
    const resumed = await resume(id, { missed: 'run_once' });
    expect(resumed.status).toBe(200);
    expect(new Date(resumed.body.data.next_attempt_at).getTime()).toBeLessThanOrEqual(Date.now() + 100);
    // The missed occurrence runs once, and the series carries on from its next regular occurrence.
    await rx.waitFor('/series-once', hits + 2);
    // The receiver answers before the success is recorded.
    const after = await eventually(async () => {
      const a = await svc.get(id);
      return a.recurrence_count >= before.recurrence_count + 2 ? a : null;
    });
    expect(new Date(after.scheduled_for).getTime()).toBeGreaterThan(resumedAt);
    expect(after.next_occurrences).toHaveLength(5);
    await api(server, key, 'DELETE', `/v1/actions/${id}`);
    const final = await svc.get(id);
    expect(rx.to('/series-once')).toHaveLength(final.recurrence_count);
  });

  it('a series resumed with skip drops what was missed and moves to its next occurrence', async () => {
    const { id, before, hits } = await pausedSeries('series-skip');
    const resumedAt = Date.now();
    const resumed = await resume(id, { missed: 'skip' });
    const answeredAt = Date.now();
    expect(resumed.status).toBe(200);
    const next = new Date(resumed.body.data.next_attempt_at).getTime();
    // The next occurrence after the resume: within one interval (a second here) of it.
    expect(next).toBeGreaterThan(resumedAt);
    expect(next).toBeLessThanOrEqual(answeredAt + 1000);
    expect(resumed.body.data.scheduled_for).toBe(resumed.body.data.next_attempt_at);
    expect(resumed.body.data.recurrence_count).toBe(before.recurrence_count);
    const [, hit] = await rx.waitFor('/series-skip', hits + 1).then((all) => [null, all[hits]]);
    expect(hit!.at).toBeGreaterThanOrEqual(next - 50);
    // Cancelled between occurrences: one cancelled in flight (sent, its record dropped) would be counted nowhere.
    await expect.poll(async () => (await svc.get(id)).status, { timeout: 10_000 }).not.toBe('executing');
    await api(server, key, 'DELETE', `/v1/actions/${id}`);
    const final = await svc.get(id);
    expect(final.reminder_events[1].notes).toContain('missed occurrences skipped');
    expect(rx.to('/series-skip')).toHaveLength(final.recurrence_count);
  });

  it('skip on a one-time action whose moment passed ends it expired, never delivered', async () => {
    const res = await create({ schedule: { wait: '2s' }, request: { url: `${rx.url}/skipped` } });
    const id = res.body.data.id as string;
    expect((await pause(id, { indefinite: true })).status).toBe(200);
    // Its moment passes and its job fires, finding it paused.
    await pastInstant(Date.parse(res.body.data.scheduled_for));
    await noJobsLeft(id);
    const resumed = await resume(id, { missed: 'skip' });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ status: 'expired', next_attempt_at: null });
    await noJobsLeft(id);
    expect(rx.to('/skipped')).toHaveLength(0);
  });

  it('an approval paused has its timeout stop; resumed, the clock runs on for the time that was left', async () => {
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Deploy?', recipients: ['ops@example.com'], timeout: '10m', on_timeout: 'expire' },
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    const waiting = await svc.until(id, 'awaiting_response');
    const expiresAt = new Date(waiting.gate.expires_at).getTime();
    const paused = await pause(id, { indefinite: true });
    expect(paused.status).toBe(200);
    const pausedAt = new Date(paused.body.data.pause.paused_at).getTime();
    // Past the original expiry, its timeout timer fired and found it paused: still paused, not expired.
    await pastInstant(expiresAt);
    await noJobsLeft(id, 'timeout');
    const held = await svc.get(id);
    expect(held.status).toBe('paused');
    const before = Date.now();
    const resumed = await resume(id);
    const after = Date.now();
    expect(resumed.body.data.status).toBe('awaiting_response');
    const moved = new Date(resumed.body.data.gate.expires_at).getTime();
    // The expiry moved on by exactly the time paused (the server resumed between `before` and `after`), so the
    // time left is what was left when it was paused.
    expect(moved - expiresAt).toBeGreaterThanOrEqual(before - pausedAt - 50);
    expect(moved - expiresAt).toBeLessThanOrEqual(after - pausedAt + 50);
    const expired = await svc.until(id, 'expired');
    expect(Date.now()).toBeGreaterThanOrEqual(moved - 100);
    expect(expired.reminder_events.map((e: any) => e.event_type)).toEqual(
      expect.arrayContaining(['sent', 'paused', 'resumed', 'expired']),
    );
  });

  it('answers to a paused approval are held (409) until it is resumed; then they count', async () => {
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Ship?', recipients: ['held@example.com'], timeout: '1d' },
    });
    const id = res.body.data.id as string;
    const [mail] = await smtp.waitFor('held@example.com');
    await svc.until(id, 'awaiting_response');
    expect((await pause(id, { indefinite: true })).status).toBe(200);
    const answer = () =>
      fetch(linkIn(mail!.text), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ decision: 'confirm' }),
      });
    const held = await answer();
    expect(held.status).toBe(409);
    expect(((await held.json()) as { message: string }).message).toContain('on hold');
    expect((await svc.get(id)).status).toBe('paused');
    expect((await resume(id)).body.data.status).toBe('awaiting_response');
    const counted = await answer();
    expect(counted.status).toBe(200);
    expect((await svc.get(id)).status).toBe('executed');
  });

  it('answers 409 where pause or resume does not apply, 422 with dotted paths, 404 across accounts', async () => {
    const res = await create({ schedule: { wait: '1h' }, request: { url: `${rx.url}/never` } });
    const id = res.body.data.id as string;

    for (const [body, field] of [
      [{}, 'until'],
      [{ until: new Date(Date.now() + 60_000).toISOString(), duration: '1h' }, 'until'],
      [{ duration: '1h', indefinite: true }, 'until'],
      [{ duration: 'soon' }, 'duration'],
      [{ until: 'tomorrow-ish' }, 'until'],
      [{ until: new Date(Date.now() - 60_000).toISOString() }, 'until'],
      [{ duration: '400d' }, 'duration'],
      [{ indefinite: true, note: 'x'.repeat(1001) }, 'note'],
    ] as const) {
      const bad = await pause(id, body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(bad.body.errors)).toContain(field);
    }
    expect((await svc.get(id)).status).toBe('scheduled');
    const badMissed = await resume(id, { missed: 'later' });
    expect(badMissed.status).toBe(422);
    expect(Object.keys(badMissed.body.errors)).toEqual(['missed']);

    const notPaused = await resume(id, {});
    expect(notPaused.status).toBe(409);
    expect(notPaused.body.message).toContain('not paused');
    expect((await pause(id, { indefinite: true })).status).toBe(200);
    const twice = await pause(id, { indefinite: true });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toContain('already paused');

    const other = await runCli(
      ['accounts', 'create', '--name', 'other', '--plan', 'pro', '--json'],
      server.env,
    );
    const otherKey = JSON.parse(other.stdout).api_key as string;
    for (const path of ['pause', 'resume']) {
      const stolen = await api(server, otherKey, 'POST', `/v1/actions/${id}/${path}`, { indefinite: true });
      expect(stolen.status).toBe(404);
      expect(stolen.body).toMatchObject({ message: 'action not found' });
    }
    expect((await svc.get(id)).status).toBe('paused');

    // A paused action can be cancelled; a final one cannot be paused.
    expect((await api(server, key, 'DELETE', `/v1/actions/${id}`)).body.data.status).toBe('cancelled');
    const final = await pause(id, { indefinite: true });
    expect(final.status).toBe(409);
    expect(final.body.message).toContain('cancelled');
  });
});
