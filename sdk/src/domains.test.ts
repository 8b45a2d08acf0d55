import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from './client.js';
import { SchedApiError } from './errors.js';

function stubFetch(...answers: { status: number; body?: unknown }[]) {
  const requests: { url: string; method: string }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      requests.push({ url, method: init.method ?? 'GET' });
      const answer = answers.shift() ?? { status: 500, body: { message: 'no more answers' } };
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  return requests;
}

const sched = () => createClient({ baseUrl: 'http://sched.test', apiKey: 'sk_test' });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('sched.domains', () => {
  it('maps each method to its endpoint and unwraps data', async () => {
    const summary = { domain: 'a.example.com', verified: false, verified_at: null, method: null };
    const requests = stubFetch(
      { status: 200, body: { data: [summary] } },
      { status: 200, body: { data: { domain: 'a.example.com', verification_token: 't' } } },
      { status: 200, body: { data: { ...summary, errors: { dns: 'no TXT record', file: 'answered 404' } } } },
      { status: 204 },
    );
    const s = sched();
    expect(await s.domains.list()).toEqual([summary]);
    expect((await s.domains.verify('a.example.com')).verification_token).toBe('t');
    expect((await s.domains.check('a.example.com')).errors.dns).toBe('no TXT record');
    await s.domains.remove('a.example.com');
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET http://sched.test/v1/domains',
      'POST http://sched.test/v1/domains/a.example.com/verify',
      'POST http://sched.test/v1/domains/a.example.com/check',
      'DELETE http://sched.test/v1/domains/a.example.com',
    ]);
  });

  it('throws the API error with its field errors', async () => {
    stubFetch({ status: 422, body: { message: 'invalid', errors: { domain: ['must be a host name'] } } });
    const err = await sched()
      .domains.get('10.0.0.1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedApiError);
    expect((err as SchedApiError).errors).toEqual({ domain: ['must be a host name'] });
  });
});
