import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from './client.js';
import { SchedApiError } from './errors.js';

const action = { id: '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11', name: 'ping', status: 'scheduled' };

/** Answers each request with the next canned response and records what was asked. */
function stubFetch(...answers: { status: number; body: unknown }[]) {
  const requests: { url: string; method: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      requests.push({
        url,
        method: init.method ?? 'GET',
        body: init.body ? JSON.parse(String(init.body)) : undefined,
      });
      const answer = answers.shift() ?? { status: 500, body: { message: 'no more answers' } };
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  return requests;
}

const sched = () => createClient({ baseUrl: 'http://sched.test/', apiKey: 'sk_test' });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('actions.create', () => {
  it('tells a created action (201) from a skipped one (200)', async () => {
    stubFetch(
      { status: 201, body: { data: action } },
      {
        status: 200,
        body: {
          data: action,
          meta: { skipped: true, reason: 'idempotency_key_exists', existing_status: 'scheduled' },
        },
      },
    );
    const body = { request: { url: 'https://example.com' }, schedule: { wait: '1m' }, idempotency_key: 'k' };
    expect(await sched().actions.create(body)).toEqual({ skipped: false, action });
    expect(await sched().actions.create(body)).toEqual({
      skipped: true,
      action,
      reason: 'idempotency_key_exists',
      existingStatus: 'scheduled',
    });
  });

  it('throws SchedApiError with field errors on 422', async () => {
    stubFetch({ status: 422, body: { message: 'invalid', errors: { 'request.url': ['must be https'] } } });
    const err = await sched()
      .actions.create({ request: { url: 'http://x' }, schedule: { wait: '1m' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedApiError);
    expect(err).toMatchObject({ status: 422, errors: { 'request.url': ['must be https'] } });
  });
});

describe('the other action calls', () => {
  it('send the documented method, path and body', async () => {
    const requests = stubFetch(
      { status: 200, body: { data: [], meta: { current_page: 2, last_page: 2, total: 3, per_page: 2 } } },
      { status: 200, body: { data: { ...action, status: 'cancelled' } } },
      { status: 200, body: { data: { ...action, status: 'cancelled' } } },
      {
        status: 200,
        body: { message: 'cancelled 1 action', cancelled: 1, skipped: 0, coordination_key: 'c' },
      },
      {
        status: 200,
        body: { data: { ...action, status: 'resolved', attempt_count: 0, manual_retry_count: 1 } },
      },
      { status: 200, body: { keys: ['a', 'b'] } },
    );
    const s = sched();
    await s.actions.list({ status: 'scheduled', page: 2, per_page: 2 });
    await s.actions.cancel(action.id);
    await s.actions.cancelByIdempotencyKey('idem');
    expect((await s.actions.cancelByCoordinationKey('c')).cancelled).toBe(1);
    expect((await s.actions.retry(action.id)).manual_retry_count).toBe(1);
    expect(await s.coordinationKeys()).toEqual(['a', 'b']);
    expect(requests).toEqual([
      {
        url: 'http://sched.test/v1/actions?status=scheduled&page=2&per_page=2',
        method: 'GET',
        body: undefined,
      },
      { url: `http://sched.test/v1/actions/${action.id}`, method: 'DELETE', body: undefined },
      { url: 'http://sched.test/v1/actions', method: 'DELETE', body: { idempotency_key: 'idem' } },
      {
        url: 'http://sched.test/v1/actions/by-coordination-key',
        method: 'DELETE',
        body: { coordination_key: 'c' },
      },
      { url: `http://sched.test/v1/actions/${action.id}/retry`, method: 'POST', body: undefined },
      { url: 'http://sched.test/v1/coordination-keys', method: 'GET', body: undefined },
    ]);
  });
});
