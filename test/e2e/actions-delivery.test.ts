import { createHmac } from 'node:crypto';
import { verifySignature } from '@sched/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { callbackStates, workAhead } from '../support/jobs.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { sqlValue } from '../support/seed.js';
import { api, startServer, type TestServer } from '../support/server.js';

// Delivery end to end: a real server subprocess, real loopback receivers. SCHED_TIME_SCALE=300 turns the retry
// waits of 1, 5 and 15 minutes into 0.2, 1 and 3 seconds, and a 5-minute recurrence into one second.
describe('webhook delivery', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let key: string;

  const create = (body: Record<string, unknown>) => api(server, key, 'POST', '/v1/actions', body);
  const get = async (id: string) => (await api(server, key, 'GET', `/v1/actions/${id}`)).body.data;
  const until = (id: string, status: string) =>
    eventually(async () => ((await get(id)).status === status ? get(id) : null));

  beforeAll(async () => {
    db = await createTestDatabase('delivery');
    rx = await startReceiver();
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
    key = server.apiKey;
    // Every receiver here is one origin (127.0.0.1 and the receiver's port), failing on purpose test after test: its
    // circuit breaker (on by default, docs/destinations.md) would open and hold what follows. The breaker has its own
    // tests.
    const origin = encodeURIComponent(new URL(rx.url).origin);
    const off = await api(server, key, 'PUT', `/v1/destinations/${origin}`, { circuit: { enabled: false } });
    expect(off.status).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('delivers at the scheduled second with the body, method and headers asked for, and logs the punctuality', async () => {
    const due = new Date(Date.now() + 2000);
    const res = await create({
      scheduled_for: due.toISOString(),
      request: {
        url: `${rx.url}/on-time`,
        method: 'PUT',
        headers: { 'X-Custom': 'yes' },
        body: { order: 42 },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'scheduled',
      mode: 'webhook',
      attempt_count: 0,
      max_attempts: 5,
    });
    const [hit] = await rx.waitFor('/on-time');
    expect(hit!.method).toBe('PUT');
    expect(hit!.json).toEqual({ order: 42 });
    expect(hit!.headers['x-custom']).toBe('yes');
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['x-sched-action-id']).toBe(res.body.data.id);
    // Second-level precision, with room for a loaded 2-core CI machine; bench/ measures the real figures.
    expect(hit!.at - due.getTime()).toBeGreaterThanOrEqual(-5);
    expect(hit!.at - due.getTime()).toBeLessThan(1000);
    const done = await until(res.body.data.id, 'executed');
    expect(done.executed_at).not.toBeNull();
    expect(done.delivery_attempts).toHaveLength(1);
    expect(done.delivery_attempts[0]).toMatchObject({
      attempt_number: 1,
      status_code: 200,
      outcome: 'success',
      error: null,
      response_excerpt: 'ok',
    });
    expect(done.delivery_attempts[0].lateness_ms).toBeLessThan(1000);
  });

  it("merges headers case-insensitively: the user's content-type wins, ours are never sent twice", async () => {
    await create({
      schedule: { wait: '1s' },
      request: {
        url: `${rx.url}/headers`,
        headers: { 'Content-Type': 'application/vnd.api+json', 'X-Sched-Attempt': '99' },
        body: { a: 1 },
      },
    });
    const [hit] = await rx.waitFor('/headers');
    expect(hit!.headers['content-type']).toBe('application/vnd.api+json');
    expect(hit!.headers['x-sched-attempt']).toBe('1');
  });

  it('2xx: executed, with an action.executed callback carrying the documented payload', async () => {
    const res = await create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/ok` },
      callback_url: `${rx.url}/cb-ok`,
    });
    const [cb] = await rx.waitFor('/cb-ok');
    expect(cb!.json).toMatchObject({
      event: 'action.executed',
      action_id: res.body.data.id,
      action_name: res.body.data.name,
      payload: { status: 'executed', response_code: 200, attempt_number: 1 },
    });
    expect(cb!.json.payload.duration_ms).toBeTypeOf('number');
    expect(cb!.json.id).toBeTypeOf('string');
    expect(new Date(cb!.json.timestamp).getTime()).toBeGreaterThan(0);
    expect(cb!.headers['x-sched-delivery-id']).toBe(cb!.json.id);
    expect((await get(res.body.data.id)).status).toBe('executed');
  });

  it('400 is a permanent failure: one attempt, failed, action.failed callback', async () => {
    rx.on('/bad', { status: 400, body: 'nope' });
    const res = await create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/bad` },
      callback_url: `${rx.url}/cb-bad`,
    });
    const [cb] = await rx.waitFor('/cb-bad');
    expect(cb!.json).toMatchObject({
      event: 'action.failed',
      action_id: res.body.data.id,
      payload: { status: 'failed', response_code: 400, total_attempts: 1, error_message: 'HTTP 400' },
    });
    const failed = await until(res.body.data.id, 'failed');
    expect(rx.to('/bad')).toHaveLength(1);
    expect(failed.delivery_attempts[0]).toMatchObject({
      status_code: 400,
      outcome: 'permanent',
      response_excerpt: 'nope',
    });
  });

  it('5xx and 429 are retried until a 2xx', async () => {
    rx.on('/flaky', (_req, hits) =>
      hits === 0
        ? { status: 503 }
        : hits === 1
          ? { status: 429, headers: { 'retry-after': '1' } }
          : { status: 204 },
    );
    const res = await create({ schedule: { wait: '1s' }, request: { url: `${rx.url}/flaky` } });
    const done = await until(res.body.data.id, 'executed');
    expect(done.attempt_count).toBe(3);
    expect(
      done.delivery_attempts.map((a: { status_code: number; outcome: string }) => [a.status_code, a.outcome]),
    ).toEqual([
      [503, 'retryable'],
      [429, 'retryable'],
      [204, 'success'],
    ]);
  });

  it('a connection error is retried, and max_attempts counts the first attempt', async () => {
    const closed = 'http://127.0.0.1:9'; // discard port: nothing listens
    const res = await create({
      schedule: { wait: '1s' },
      max_attempts: 2,
      request: { url: `${closed}/x` },
      callback_url: `${rx.url}/cb-conn`,
    });
    const [cb] = await rx.waitFor('/cb-conn');
    expect(cb!.json.payload).toMatchObject({ status: 'failed', total_attempts: 2, response_code: null });
    const failed = await until(res.body.data.id, 'failed');
    expect(failed.delivery_attempts).toHaveLength(2);
    for (const a of failed.delivery_attempts) {
      expect(a.outcome).toBe('retryable');
      expect(a.status_code).toBeNull();
      expect(a.error).toMatch(/ECONNREFUSED|refused/i);
    }
  });

  it('exponential backoff: waits of 1, 5 and 15 minutes (scaled) between attempts', async () => {
    rx.on('/exp', { status: 500 });
    const res = await create({
      schedule: { wait: '1s' },
      max_attempts: 4,
      retry_strategy: 'exponential',
      request: { url: `${rx.url}/exp` },
    });
    const failed = await until(res.body.data.id, 'failed');
    const starts = failed.delivery_attempts.map((a: { started_at: string }) =>
      new Date(a.started_at).getTime(),
    );
    const gaps = starts.slice(1).map((t: number, i: number) => t - starts[i]);
    // 60 s, 300 s, 900 s divided by 300: 200 ms, 1 s, 3 s, each jittered by up to 10 % either way (plus firing
    // overhead).
    expect(gaps[0]).toBeGreaterThanOrEqual(175);
    expect(gaps[0]).toBeLessThan(1500);
    expect(gaps[1]).toBeGreaterThanOrEqual(890);
    expect(gaps[1]).toBeLessThan(2500);
    expect(gaps[2]).toBeGreaterThanOrEqual(2690);
    expect(gaps[2]).toBeLessThan(4500);
  });

  it('linear backoff: 300 s × attempts made (scaled) between attempts', async () => {
    rx.on('/lin', { status: 502 });
    const res = await create({
      schedule: { wait: '1s' },
      max_attempts: 3,
      retry_strategy: 'linear',
      request: { url: `${rx.url}/lin` },
    });
    const failed = await until(res.body.data.id, 'failed');
    const starts = failed.delivery_attempts.map((a: { started_at: string }) =>
      new Date(a.started_at).getTime(),
    );
    const gaps = [starts[1] - starts[0], starts[2] - starts[1]];
    // 300 s and 600 s divided by 300, each jittered by up to 10 % either way.
    expect(gaps[0]).toBeGreaterThanOrEqual(890);
    expect(gaps[0]).toBeLessThan(2500);
    expect(gaps[1]).toBeGreaterThanOrEqual(1790);
    expect(gaps[1]).toBeLessThan(3500);
  });

  it('signs requests and callbacks: verified by the shared verifier and by an independent HMAC', async () => {
    const secret = 'whsec-test-0123456789abcdef';
    rx.on('/signed', (_req, hits) => ({ status: hits === 0 ? 500 : 200 }));
    const res = await create({
      schedule: { wait: '1s' },
      webhook_secret: secret,
      request: { url: `${rx.url}/signed`, body: { hello: 'world' } },
      callback_url: `${rx.url}/cb-signed`,
    });
    expect(res.body.data.signed).toBe(true);
    expect(JSON.stringify(res.body.data)).not.toContain(secret);
    const hits = await rx.waitFor('/signed', 2);
    for (const hit of hits) {
      const header = String(hit.headers['x-service-signature']);
      const [, t, v1, v2] = /^t=(\d+),v1=([0-9a-f]{64}),v2=([0-9a-f]{64})$/.exec(header)!;
      expect(createHmac('sha256', secret).update(`${t}.${hit.body}`).digest('hex')).toBe(v1);
      // v2 covers the webhook-id too (docs/signatures.md).
      const v2Message = `${hit.headers['webhook-id']}.${t}.${hit.body}`;
      expect(createHmac('sha256', secret).update(v2Message).digest('hex')).toBe(v2);
      expect(Math.abs(Number(t) - hit.at / 1000)).toBeLessThan(5);
      const std = createHmac('sha256', Buffer.from(secret))
        .update(`${hit.headers['webhook-id']}.${hit.headers['webhook-timestamp']}.${hit.body}`)
        .digest('base64');
      expect(hit.headers['webhook-signature']).toBe(`v1,${std}`);
      expect(verifySignature({ secret, headers: hit.headers, body: hit.body })).toMatchObject({ ok: true });
      expect(
        verifySignature({ secret: 'another-secret-value', headers: hit.headers, body: hit.body }).ok,
      ).toBe(false);
      expect(verifySignature({ secret, headers: hit.headers, body: `${hit.body} ` }).ok).toBe(false);
    }
    // Retries of one delivery keep one message id, so receivers can deduplicate.
    expect(hits[0]!.headers['webhook-id']).toBe(hits[1]!.headers['webhook-id']);
    const [cb] = await rx.waitFor('/cb-signed');
    expect(verifySignature({ secret, headers: cb!.headers, body: cb!.body })).toMatchObject({ ok: true });
    expect(cb!.headers['webhook-id']).toBe(cb!.json.id);
  });

  it('retries a callback that fails (3 attempts: now, +1 min, +5 min scaled) without touching the action', async () => {
    rx.on('/cb-flaky', (_req, hits) => ({ status: hits < 2 ? 500 : 200 }));
    const res = await create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/ok2` },
      callback_url: `${rx.url}/cb-flaky`,
    });
    const calls = await rx.waitFor('/cb-flaky', 3);
    expect(new Set(calls.map((c) => c.json.id)).size).toBe(1);
    // 1 and 5 minutes scaled (200 and 1000 ms), each jittered by up to 10 % either way.
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(175);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(890);
    expect((await get(res.body.data.id)).status).toBe('executed');

    // A callback given up on (three 500s) or refused (a 400) is final in the outbox: nothing more is sent.
    rx.on('/cb-dead', { status: 500 });
    const dead = await create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/ok3` },
      callback_url: `${rx.url}/cb-dead`,
    });
    await eventually(async () => (await callbackStates(db.url, dead.body.data.id)).join() === 'abandoned');
    expect(rx.to('/cb-dead')).toHaveLength(3);

    rx.on('/cb-invalid', { status: 400 });
    const invalid = await create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/ok4` },
      callback_url: `${rx.url}/cb-invalid`,
    });
    await eventually(async () => (await callbackStates(db.url, invalid.body.data.id)).join() === 'rejected');
    expect(rx.to('/cb-invalid')).toHaveLength(1);
  });

  it('recurrence fires several times, then ends, counting executions', async () => {
    const res = await create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/recur` },
      recurrence: { frequency: 5, unit: 'm', end_type: 'count', max_occurrences: 3 },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.is_recurring).toBe(true);
    const hits = await rx.waitFor('/recur', 3);
    const done = await until(res.body.data.id, 'executed');
    expect(done.recurrence_count).toBe(3);
    expect(done.last_executed_at).not.toBeNull();
    // 5 minutes / 300 = 1 s apart.
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(900);
    // Ended, with nothing due left for it: no fourth run can come.
    await eventually(async () => (await workAhead(db.url, [res.body.data.id])) === 0);
    expect(rx.to('/recur')).toHaveLength(3);
    expect(done.delivery_attempts).toHaveLength(3);
    const listed = await api(server, key, 'GET', '/v1/actions?recurring=recurring');
    expect(listed.body.data.map((a: { id: string }) => a.id)).toContain(res.body.data.id);
  });

  it('a failed action can be retried by hand: attempt_count resets and manual_retry_count grows', async () => {
    let healthy = false;
    rx.on('/later', () => ({ status: healthy ? 200 : 400 }));
    const res = await create({ schedule: { wait: '1s' }, request: { url: `${rx.url}/later` } });
    await until(res.body.data.id, 'failed');
    const notFailed = await create({ schedule: { wait: '1h' }, request: { url: `${rx.url}/x` } });
    const refused = await api(server, key, 'POST', `/v1/actions/${notFailed.body.data.id}/retry`);
    expect(refused.status).toBe(422);
    healthy = true;
    const retried = await api(server, key, 'POST', `/v1/actions/${res.body.data.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual({
      id: res.body.data.id,
      name: res.body.data.name,
      status: 'resolved',
      attempt_count: 0,
      manual_retry_count: 1,
    });
    const done = await until(res.body.data.id, 'executed');
    expect(done.manual_retry_count).toBe(1);
    // A failed action whose idempotency key has since gone to a newer live action cannot be retried.
    rx.on('/keyed', { status: 400 });
    const keyed = await create({
      idempotency_key: 'retry-key',
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/keyed` },
    });
    await until(keyed.body.data.id, 'failed');
    const newer = await create({
      idempotency_key: 'retry-key',
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/keyed` },
    });
    expect(newer.status).toBe(201);
    const conflict = await api(server, key, 'POST', `/v1/actions/${keyed.body.data.id}/retry`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toContain(newer.body.data.id);
    expect(done.delivery_attempts.map((a: { status_code: number }) => a.status_code)).toEqual([400, 200]);
  });

  it('refuses a request body over 1 MiB with 413 and a message', async () => {
    const big = JSON.stringify({
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/big`, body: { blob: 'x'.repeat(1024 * 1024) } },
    });
    const res = await api(server, key, 'POST', '/v1/actions', big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 'payload_too_large', message: expect.any(String) });
  });

  it('exposes Prometheus metrics: lateness histogram and deliveries by outcome', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/sched_fire_lateness_seconds_count\{[^}]*\} [1-9]/);
    expect(text).toMatch(/sched_deliveries_total\{[^}]*outcome="success"[^}]*\} [1-9]/);
    expect(text).toContain('sched_queue_depth');
    expect(text).toContain('sched_oldest_due_seconds');
    expect(text).toMatch(/sched_callbacks_total\{[^}]*outcome="delivered"/);
  });

  it('an action whose row is deleted while its request is in flight records nothing, and delivery goes on', async () => {
    rx.on('/deleted-in-flight', { status: 200, body: 'ok', delayMs: 1_500 });
    const res = await create({ schedule: { wait: '1s' }, request: { url: `${rx.url}/deleted-in-flight` } });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    await rx.waitFor('/deleted-in-flight');
    // As an operator deleting by hand would (no route deletes an action's row): the attempt log keeps no attempt of it.
    await sqlValue(db.url, 'delete from actions where id = $1 returning id', [id]);
    // Due after the deleted one's answer (1.5 s after its request), so the worker has recorded it by then.
    const next = await create({ schedule: { wait: '3s' }, request: { url: `${rx.url}/after-deleted` } });
    await until(next.body.data.id, 'executed');
    expect(
      await sqlValue(db.url, 'select count(*)::int from delivery_attempts where action_id = $1', [id]),
    ).toBe(0);
    expect((await api(server, key, 'GET', `/v1/actions/${id}`)).status).toBe(404);
  });
});
