import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApprovalBody, respond } from './approvals.js';
import { createClient } from './client.js';
import { SchedApiError, SchedConnectionError } from './errors.js';

const id = '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11';

/** Answers each request with the next canned response and records what was asked. */
function stubFetch(...answers: { status: number; body?: unknown }[]) {
  const requests: { url: string; method: string; headers: Record<string, string>; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      requests.push({
        url,
        method: init.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: init.body ? JSON.parse(String(init.body)) : undefined,
      });
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

describe('buildApprovalBody', () => {
  it('keeps a minimal approval minimal: the server applies the defaults', () => {
    expect(buildApprovalBody({ to: 'ada@example.com', message: 'Ship?', schedule: { wait: '1h' } })).toEqual({
      mode: 'approval',
      gate: { message: 'Ship?', recipients: ['ada@example.com'] },
      schedule: { wait: '1h' },
    });
  });

  it('maps every option to its snake_case field and base64-encodes bytes', () => {
    const body = buildApprovalBody({
      to: ['ada@example.com', '+15551234567'],
      message: 'Ship?',
      scheduledFor: new Date('2030-01-01T09:00:00Z'),
      channels: ['email', 'sms'],
      timeout: '1d',
      onTimeout: 'expire',
      confirmationMode: 'all_required',
      maxSnoozes: 0,
      buttons: ['Ship', 'Hold'],
      escalation: { contacts: 'boss@example.com', afterHours: 2 },
      attachments: [
        { name: 'notes.txt', contentType: 'text/plain', content: new TextEncoder().encode('hi ✓') },
        { name: 'ready.b64', content: 'aGk=' },
        { name: 'plan.pdf', url: 'https://example.com/plan.pdf' },
      ],
      request: { url: 'https://example.com/deploy', body: { v: 2 } },
      webhookSecret: 'a-secret-of-16-chars',
      name: 'Deploy',
      description: 'v2',
      timezone: 'Europe/Berlin',
      idempotencyKey: 'deploy-v2',
      callbackUrl: 'https://example.com/cb',
      dedupKeys: ['deploy'],
      coordination: { on_create: 'skip_if_exists' },
    });
    expect(body).toEqual({
      mode: 'approval',
      scheduled_for: '2030-01-01T09:00:00.000Z',
      gate: {
        message: 'Ship?',
        recipients: ['ada@example.com', '+15551234567'],
        channels: ['email', 'sms'],
        timeout: '1d',
        on_timeout: 'expire',
        confirmation_mode: 'all_required',
        max_snoozes: 0,
        buttons: ['Ship', 'Hold'],
        escalation: { contacts: ['boss@example.com'], after_hours: 2 },
        attachments: [
          { name: 'notes.txt', content_type: 'text/plain', content: Buffer.from('hi ✓').toString('base64') },
          { name: 'ready.b64', content: 'aGk=' },
          { name: 'plan.pdf', url: 'https://example.com/plan.pdf' },
        ],
      },
      request: { url: 'https://example.com/deploy', body: { v: 2 } },
      webhook_secret: 'a-secret-of-16-chars',
      name: 'Deploy',
      description: 'v2',
      timezone: 'Europe/Berlin',
      idempotency_key: 'deploy-v2',
      callback_url: 'https://example.com/cb',
      dedup_keys: ['deploy'],
      coordination: { on_create: 'skip_if_exists' },
    });
  });

  it('encodes large byte arrays (more than one chunk) exactly', () => {
    const bytes = new Uint8Array(100_000).map((_, i) => i % 256);
    const body = buildApprovalBody({
      to: 'a@example.com',
      message: 'm',
      attachments: [{ name: 'big.bin', content: bytes }],
    });
    expect(body.gate?.attachments?.[0]?.content).toBe(Buffer.from(bytes).toString('base64'));
  });
});

describe('approvals, channels and team members', () => {
  it('approvals.create posts the approval body to /v1/actions', async () => {
    const requests = stubFetch({ status: 201, body: { data: { id, name: 'Deploy', status: 'scheduled' } } });
    const result = await sched().approvals.create({
      to: 'a@example.com',
      message: 'm',
      schedule: { wait: '1s' },
    });
    expect(result).toMatchObject({ skipped: false, action: { id } });
    expect(requests[0]).toMatchObject({
      url: 'http://sched.test/v1/actions',
      method: 'POST',
      body: { mode: 'approval', gate: { message: 'm', recipients: ['a@example.com'] } },
    });
  });

  it('send the documented method, path and body, and unwrap data', async () => {
    const channel = { id, name: 'ops', type: 'slack', webhook_url: 'https://hooks.slack.com/x' };
    const member = { id, name: 'Ada', email: 'ada@example.com', phone: null, push_subscriptions: [] };
    const requests = stubFetch(
      { status: 200, body: { data: [channel] } },
      { status: 201, body: { data: channel } },
      { status: 200, body: { data: channel } },
      { status: 200, body: { data: { ...channel, name: 'ops2' } } },
      { status: 204 },
      { status: 200, body: { data: [member] } },
      { status: 201, body: { data: member } },
      { status: 200, body: { data: member } },
      { status: 200, body: { data: { ...member, phone: '+15551234567' } } },
      { status: 204 },
    );
    const s = sched();
    expect(await s.channels.list()).toEqual([channel]);
    expect(
      await s.channels.create({ name: 'ops', type: 'slack', webhook_url: 'https://hooks.slack.com/x' }),
    ).toEqual(channel);
    await s.channels.get(id);
    expect((await s.channels.update(id, { name: 'ops2' })).name).toBe('ops2');
    expect(await s.channels.delete(id)).toBeUndefined();
    expect(await s.teamMembers.list()).toEqual([member]);
    await s.teamMembers.create({ name: 'Ada', email: 'ada@example.com' });
    await s.teamMembers.get(id);
    expect((await s.teamMembers.update(id, { phone: '+15551234567' })).phone).toBe('+15551234567');
    await s.teamMembers.delete(id);
    expect(requests.map((r) => [r.method, r.url.replace('http://sched.test', ''), r.body])).toEqual([
      ['GET', '/v1/channels', undefined],
      ['POST', '/v1/channels', { name: 'ops', type: 'slack', webhook_url: 'https://hooks.slack.com/x' }],
      ['GET', `/v1/channels/${id}`, undefined],
      ['PUT', `/v1/channels/${id}`, { name: 'ops2' }],
      ['DELETE', `/v1/channels/${id}`, undefined],
      ['GET', '/v1/team-members', undefined],
      ['POST', '/v1/team-members', { name: 'Ada', email: 'ada@example.com' }],
      ['GET', `/v1/team-members/${id}`, undefined],
      ['PUT', `/v1/team-members/${id}`, { phone: '+15551234567' }],
      ['DELETE', `/v1/team-members/${id}`, undefined],
    ]);
    expect(requests.every((r) => r.headers.authorization === 'Bearer sk_test')).toBe(true);
  });

  it('a 403 (plan without Slack) throws SchedApiError', async () => {
    stubFetch({ status: 403, body: { message: 'Slack and Teams channels need the Business plan' } });
    const err = await sched()
      .channels.create({ name: 'ops', type: 'teams', webhook_url: 'https://example.com/x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedApiError);
    expect(err).toMatchObject({ status: 403, message: 'Slack and Teams channels need the Business plan' });
  });
});

describe('respond', () => {
  const link = 'https://sched.example.com/r/abc_DEF-123';
  const result = {
    action_id: id,
    recipient_id: id,
    decision: 'snooze',
    recipient_status: 'snoozed',
    action_status: 'awaiting_response',
    snoozed_until: '2030-01-01T10:00:00.000Z',
  };

  it('posts JSON asking for JSON, without an API key, and answers the result', async () => {
    const requests = stubFetch({ status: 200, body: result });
    expect(await respond(link, { decision: 'snooze', comment: 'later', snoozeFor: '1h' })).toEqual(result);
    expect(requests).toEqual([
      {
        url: link,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: { decision: 'snooze', comment: 'later', snooze_for: '1h' },
      },
    ]);
  });

  it('goes through the contract route, keeping a public URL with a path prefix; refuses a non-link', async () => {
    const requests = stubFetch({ status: 200, body: result });
    await respond('https://example.org/sched/r/tok_1', { decision: 'confirm' });
    expect(requests[0]!.url).toBe('https://example.org/sched/r/tok_1');
    await expect(respond('https://example.org/actions/1', { decision: 'confirm' })).rejects.toThrow(
      TypeError,
    );
  });

  it('the client method sends no authorization either', async () => {
    const requests = stubFetch({ status: 200, body: result });
    await sched().respond(link, { decision: 'confirm' });
    expect(requests[0]!.headers.authorization).toBeUndefined();
    expect(requests[0]!.body).toEqual({ decision: 'confirm' });
  });

  it('a spent link throws SchedApiError 410; a network failure hides the token', async () => {
    stubFetch({ status: 410, body: { message: 'this link has already been used' } });
    await expect(respond(link, { decision: 'confirm' })).rejects.toMatchObject({
      name: 'SchedApiError',
      status: 410,
      message: 'this link has already been used',
    });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('fetch failed');
      }),
    );
    const err = await respond(link, { decision: 'confirm' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedConnectionError);
    expect((err as Error).message).toBe('cannot reach https://sched.example.com: fetch failed');
  });
});
