import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from './client.js';
import { SchedApiError } from './errors.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

function stubFetch(...answers: { status: number; body: string; type?: string }[]) {
  const requests: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      requests.push(`${init.method ?? 'GET'} ${url}`);
      const a = answers.shift()!;
      return new Response(a.body, {
        status: a.status,
        headers: { 'content-type': a.type ?? 'application/json' },
      });
    }),
  );
  return requests;
}

describe('sched.audit', () => {
  const s = () => createClient({ baseUrl: 'http://sched.test', apiKey: 'sk_test' });

  it('pages with the keyset cursor, verifies and exports', async () => {
    const event = (seq: number) => ({ seq, action: 'action.create' });
    const requests = stubFetch(
      { status: 200, body: JSON.stringify({ data: [event(1)], meta: { next_after: 1, limit: 1000 } }) },
      { status: 200, body: JSON.stringify({ data: [event(2)], meta: { next_after: null, limit: 1000 } }) },
      { status: 200, body: JSON.stringify({ data: { ok: true, checked: 2 } }) },
      { status: 200, body: '{"seq":1}\n', type: 'application/x-ndjson' },
      {
        status: 422,
        body: JSON.stringify({ code: 'validation_failed', message: 'x', errors: { format: ['x'] } }),
      },
    );
    const seen = [];
    for await (const e of s().audit.all({ action: 'action.*' })) seen.push(e.seq);
    expect(seen).toEqual([1, 2]);
    expect(await s().audit.verify()).toEqual({ ok: true, checked: 2 });
    expect(await s().audit.export('ndjson', { action: 'approval.*' })).toBe('{"seq":1}\n');
    await expect(s().audit.export('csv')).rejects.toBeInstanceOf(SchedApiError);
    expect(requests[0]).toContain('/v1/audit-events?');
    expect(requests[0]).toContain('action=action.*');
    expect(requests[1]).toContain('after=1');
    expect(requests[2]).toBe('GET http://sched.test/v1/audit-events/verify');
    expect(requests[3]).toBe('GET http://sched.test/v1/audit-events/export?format=ndjson&action=approval.*');
    // A link's address: the filters given, none left as "undefined".
    expect(s().audit.exportUrl('csv', { actor_type: 'api_key', resource_id: undefined })).toBe(
      'http://sched.test/v1/audit-events/export?format=csv&actor_type=api_key',
    );
  });

  it('reads and changes which data events the log records', async () => {
    const requests = stubFetch(
      { status: 200, body: JSON.stringify({ data: { action_create: false } }) },
      { status: 200, body: JSON.stringify({ data: { action_create: true } }) },
    );
    expect(await s().audit.settings()).toEqual({ action_create: false });
    expect(await s().audit.updateSettings({ action_create: true })).toEqual({ action_create: true });
    expect(requests).toEqual([
      'GET http://sched.test/v1/audit-events/settings',
      'PATCH http://sched.test/v1/audit-events/settings',
    ]);
  });
});
