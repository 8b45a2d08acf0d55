import { createClient, verifyWebhook } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { startSmtpServer } from '../support/peers.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// Alert rules end to end: `sched serve` as a process, a real SMTP sink and loopback receivers. SCHED_TIME_SCALE=60
// makes a minute of group_wait, repeat_every or threshold window last one second. Each rule filters on its own
// dedup key, so the rules of one test do not see the failures of another.
describe('alert rules', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let rx: Receiver;
  let key: string;
  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);
  const rule = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/v1/alert-rules', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: string; [k: string]: unknown };
  };
  const getRule = async (id: string) => (await call('GET', `/v1/alert-rules/${id}`)).body.data;
  /** Actions to a receiver path that answers 400: each fails at its first attempt. */
  const failing = async (dedupKey: string, n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call('POST', '/v1/actions', {
        name: `${dedupKey} #${i + 1}`,
        schedule: { wait: '1s' },
        request: { url: `${rx.url}/refuses`, body: { i } },
        dedup_keys: [dedupKey],
        max_attempts: 1,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.data.id);
    }
    for (const id of ids)
      await eventually(async () => (await call('GET', `/v1/actions/${id}`)).body.data.status === 'failed');
    return ids;
  };
  /** Waits until the rule has no events waiting and its last message is out; answers the rule. */
  const settled = (id: string, messages: number) =>
    eventually(async () => {
      const r = await getRule(id);
      const done = r.recent_notifications.filter((n: { status: string }) => n.status !== 'pending');
      return r.state.pending === 0 && done.length >= messages ? r : null;
    });

  beforeAll(async () => {
    db = await createTestDatabase('alerts');
    smtp = await startSmtpServer();
    rx = await startReceiver();
    rx.on('/refuses', { status: 400, body: 'no' });
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_TIME_SCALE: '60',
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_SMTP_URL: smtp.url,
        SCHED_EMAIL_FROM: 'sched <alerts@example.com>',
      },
    });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await rx?.close();
    await db?.drop();
  });

  it('refuses a bad rule with dotted paths; writes need the write scope; another account sees 404', async () => {
    const bad = await call('POST', '/v1/alert-rules', {
      name: 'bad',
      events: ['action.failed', 'action.exploded'],
      threshold: { count: 3, window: 'soon' },
      channels: [
        { type: 'email', to: 'not-an-address' },
        { type: 'webhook', url: 'ftp://hooks.example.com/alerts' },
        { type: 'slack', channel: '00000000-0000-4000-8000-000000000000' },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('validation_failed');
    expect(Object.keys(bad.body.errors).sort()).toEqual(['channels.0.to', 'events.1', 'threshold.window']);
    // What the schema cannot see is checked whole: bounds, destinations (SSRF policy), channel resources.
    const unsafe = await call('POST', '/v1/alert-rules', {
      name: 'unsafe',
      events: ['action.failed'],
      group_wait: '2h',
      late_after: '30s',
      channels: [
        { type: 'webhook', url: 'ftp://hooks.example.com/alerts' },
        { type: 'slack', channel: '00000000-0000-4000-8000-000000000000' },
      ],
    });
    expect(unsafe.status).toBe(422);
    expect(unsafe.body.errors).toEqual({
      group_wait: ['must be at most 1h'],
      late_after: ['applies only with the delivery.late event'],
      'channels.0.url': ['must use https or http'],
      'channels.1.channel': ['no slack channel with this id'],
    });

    const created = await rule({
      name: 'tenancy',
      events: ['bulk_operation.completed'],
      channels: [{ type: 'webhook', url: `${rx.url}/tenancy`, secret: 'tenancy-secret-0123456789' }],
    });
    expect(created).toMatchObject({
      enabled: true,
      group_wait: '2m',
      repeat_every: '1h',
      late_after: null,
      channels: [{ type: 'webhook', url: `${rx.url}/tenancy`, signed: true }],
      state: { pending: 0, next_alert_at: null, last_alerted_at: null },
      recent_notifications: [],
    });
    const listed = await call('GET', '/v1/alert-rules');
    expect(listed.body.meta).toMatchObject({ current_page: 1, total: 1 });
    expect(JSON.stringify(listed.body)).not.toContain('tenancy-secret');

    const reader = await call('POST', '/v1/api-keys', { name: 'reader', scopes: ['read'] });
    const readKey = reader.body.data.key as string;
    expect((await api(server, readKey, 'GET', `/v1/alert-rules/${created.id}`)).status).toBe(200);
    const refused = await api(server, readKey, 'PUT', `/v1/alert-rules/${created.id}`, { name: 'x' });
    expect(refused.status).toBe(403);
    expect((await api(server, readKey, 'POST', `/v1/alert-rules/${created.id}/test`)).status).toBe(403);

    const other = await runCli(
      ['accounts', 'create', '--name', 'other', '--plan', 'business', '--json'],
      server.env,
    );
    const otherKey = JSON.parse(other.stdout).api_key as string;
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PUT', '', { name: 'stolen' }],
      ['POST', '/test', undefined],
      ['DELETE', '', undefined],
    ] as const) {
      const res = await api(server, otherKey, method, `/v1/alert-rules/${created.id}${path}`, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'alert rule not found' });
    }
    expect((await api(server, otherKey, 'GET', '/v1/alert-rules')).body.data).toEqual([]);

    // A webhook channel restated without its secret keeps it; changes are audited like other resources.
    const renamed = await call('PUT', `/v1/alert-rules/${created.id}`, {
      name: 'tenancy, renamed',
      channels: [{ type: 'webhook', url: `${rx.url}/tenancy` }],
    });
    expect(renamed.body.data).toMatchObject({ name: 'tenancy, renamed', channels: [{ signed: true }] });
    expect((await call('DELETE', `/v1/alert-rules/${created.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/alert-rules/${created.id}`)).status).toBe(404);
    const audit = await call('GET', '/v1/audit-events?action=alert_rule.*');
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual([
      'alert_rule.create',
      'alert_rule.update',
      'alert_rule.delete',
    ]);
    expect(audit.body.data[0].details).toEqual({
      name: 'tenancy',
      events: ['bulk_operation.completed'],
      channels: ['webhook'],
    });
  });

  it('several failures within group_wait make ONE email with their count', async () => {
    const r = await rule({
      name: 'Billing failures',
      events: ['action.failed'],
      filter: { dedup_key: 'alerts:group' },
      channels: [{ type: 'email', to: 'group@example.com' }],
      group_wait: '2m',
    });
    await failing('alerts:group', 4);
    const [mail] = await smtp.waitFor('group@example.com');
    expect(mail!.subject).toBe('Alert: Billing failures');
    expect(mail!.text).toContain('4 events (action.failed)');
    expect(mail!.text).toMatch(
      /Action "alerts:group #\d" \([0-9a-f-]{36}\) to 127\.0\.0\.1 failed after 1 attempt: HTTP 400/,
    );
    const done = await settled(r.id, 1);
    expect(done.recent_notifications).toEqual([
      expect.objectContaining({ type: 'email', status: 'sent', count: 4, attempts: 1, test: false }),
    ]);
    expect(smtp.mails.filter((m) => m.to.includes('group@example.com'))).toHaveLength(1);

    // `test` sends a sample now through the same channel.
    const tested = await call('POST', `/v1/alert-rules/${r.id}/test`);
    expect(tested.status).toBe(202);
    expect(tested.body.data).toEqual({
      rule_id: r.id,
      notifications: [expect.objectContaining({ channel: 0, type: 'email', status: 'pending', test: true })],
    });
    const mails = await smtp.waitFor('group@example.com', 2);
    expect(mails[1]!.subject).toBe('Test alert: Billing failures');
    expect(mails[1]!.text).toContain('This is a test of the rule');
    const quota = await call('GET', '/v1/quota');
    // Both count against the plan's monthly email allowance, as approval emails do.
    expect(quota.body.data.emails.used).toBe(2);
  });

  it('a threshold rule alerts only once count events fall within its window', async () => {
    const threshold = await rule({
      name: 'three failures',
      events: ['action.failed'],
      filter: { dedup_key: 'alerts:threshold' },
      threshold: { count: 3, window: '10m' },
      channels: [{ type: 'email', to: 'threshold@example.com' }],
      group_wait: '1m',
    });
    // A rule without a threshold on the same events: when its alert is out, the account's evaluation has seen them.
    const witness = await rule({
      name: 'witness',
      events: ['action.failed'],
      filter: { dedup_key: 'alerts:threshold' },
      channels: [{ type: 'webhook', url: `${rx.url}/witness` }],
      group_wait: '1m',
      repeat_every: '1m',
    });
    await failing('alerts:threshold', 2);
    await settled(witness.id, 1);
    expect((await getRule(threshold.id)).recent_notifications).toEqual([]);
    expect(smtp.mails.filter((m) => m.to.includes('threshold@example.com'))).toEqual([]);

    await failing('alerts:threshold', 1);
    const [mail] = await smtp.waitFor('threshold@example.com');
    expect(mail!.text).toContain('3 events (action.failed)');
    expect(mail!.text).toContain('The rule alerts at 3 or more within 10m.');
  });

  it('repeat_every holds the next alert of a condition that goes on; a webhook channel gets a signed body', async () => {
    const secret = 'repeat-secret-0123456789';
    rx.on('/repeat', { status: 204 });
    const r = await rule({
      name: 'repeats',
      events: ['action.failed'],
      filter: { dedup_key: 'alerts:repeat' },
      channels: [{ type: 'webhook', url: `${rx.url}/repeat`, secret }],
      group_wait: '1m',
      repeat_every: '5m',
    });
    await failing('alerts:repeat', 1);
    const [first] = await rx.waitFor('/repeat');
    await failing('alerts:repeat', 1);
    const [, second] = await rx.waitFor('/repeat', 2);
    for (const req of [first!, second!]) {
      expect(verifyWebhook({ secret, headers: req.headers, body: req.body })).toMatchObject({
        ok: true,
        id: req.json.id,
      });
      expect(req.headers['x-sched-event']).toBe('alert');
      expect(req.json).toMatchObject({
        type: 'alert',
        test: false,
        rule: { id: r.id, name: 'repeats' },
        count: 1,
      });
    }
    expect(
      verifyWebhook({ secret: 'another-secret-0123456789', headers: first!.headers, body: first!.body }).ok,
    ).toBe(false);
    // The second message waited for repeat_every (5 min / 60 = 5 s) after the first, not only its group_wait.
    const sent = (await settled(r.id, 2)).recent_notifications.map((n: { created_at: string }) =>
      Date.parse(n.created_at),
    );
    expect(sent[0] - sent[1]).toBeGreaterThanOrEqual(5_000);
    expect(second!.at - first!.at).toBeGreaterThan(3_000);
  });

  it('tells of expired approvals, completed bulk operations and late deliveries', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: key });
    const later = async () =>
      (await call('POST', '/v1/actions', { schedule: { wait: '1h' }, request: { url: `${rx.url}/later` } }))
        .body.data.id as string;
    const cancelInBulk = async (id: string) => {
      const bulk = await call('POST', '/v1/bulk-operations', {
        operation: 'cancel',
        ids: [id],
        dry_run: false,
      });
      expect(bulk.status).toBe(202);
      return bulk.body.data.id as string;
    };
    // A bulk operation completes while no rule watches bulk operations: the worker remembers that for the account.
    const before = await cancelInBulk(await later());
    await eventually(
      async () => (await call('GET', `/v1/bulk-operations/${before}`)).body.data.status === 'completed',
    );

    // The new rule is announced when it commits, so the next completion is seen at once, not after the cache expires.
    const r = await sched.alertRules.create({
      name: 'operations',
      events: ['approval.expired', 'bulk_operation.completed', 'delivery.late'],
      late_after: '1s',
      channels: [{ type: 'webhook', url: `${rx.url}/ops` }],
      group_wait: '1m',
      repeat_every: '1m',
    });
    expect(r.late_after).toBe('1s');

    // An approval nobody answers: its 1 min timeout is a second here.
    const approval = await call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'nobody answers',
      schedule: { wait: '1s' },
      gate: { message: 'Ship?', recipients: ['nobody@example.com'], timeout: '1m' },
    });
    expect(approval.status).toBe(201);
    // A bulk cancel of one far-away action.
    await cancelInBulk(await later());
    // A delivery held by a paused destination past its due time: late by more than late_after.
    const destination = `/v1/destinations/${encodeURIComponent(new URL(rx.url).origin)}`;
    await call('POST', `${destination}/pause`, { note: 'late on purpose' });
    const late = await call('POST', '/v1/actions', {
      name: 'held',
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/late` },
    });
    const due = Date.parse(late.body.data.scheduled_for);
    await eventually(async () => Date.now() > due + 1_500, 10_000, 100);
    await call('POST', `${destination}/resume`);
    await rx.waitFor('/late');

    const seen = await eventually(async () => {
      const types = new Set(
        rx.to('/ops').flatMap((req) => (req.json.sample as { type: string }[]).map((e) => e.type)),
      );
      return types.size === 3 ? types : null;
    }, 30_000);
    expect([...seen].sort()).toEqual(['approval.expired', 'bulk_operation.completed', 'delivery.late']);
    const sample = rx
      .to('/ops')
      .flatMap((req) => req.json.sample as { type: string; summary: string; details: any }[]);
    const lateEvent = sample.find((e) => e.type === 'delivery.late')!;
    expect(lateEvent.details).toMatchObject({ name: 'held', held_by: 'paused' });
    expect(lateEvent.details.lateness_ms).toBeGreaterThanOrEqual(1_000);
    expect(lateEvent.summary).toMatch(/^Action "held" \(.+\) to 127\.0\.0\.1 started \d+\.\d s late \(held/);
    // An unsigned channel: no signature headers at all.
    expect(rx.to('/ops')[0]!.headers['webhook-signature']).toBeUndefined();
    await sched.alertRules.delete(r.id);
  });

  it('the SDK and the CLI manage rules', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: key });
    const r = await sched.alertRules.create({
      name: 'managed by the SDK',
      events: ['delivery.late'],
      late_after: '1s',
      channels: [{ type: 'webhook', url: `${rx.url}/ops` }],
    });
    expect((await sched.alertRules.list()).data.map((x) => x.id)).toContain(r.id);
    const paused = await sched.alertRules.update(r.id, { enabled: false });
    expect(paused.enabled).toBe(false);
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const shown = await runCli(['alerts', 'get', r.id], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('managed by the SDK');
    const updated = await runCli(
      ['alerts', 'update', r.id, '--enabled', '--clear', 'late_after', '--json'],
      env,
    );
    expect(JSON.parse(updated.stdout).data).toMatchObject({ enabled: true, late_after: '1m' });
    const created = await runCli(
      [
        'alerts',
        'create',
        '--name',
        'cli',
        '--event',
        'action.failed',
        '--email',
        'cli@example.com',
        '--threshold',
        '5/10m',
        '--json',
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const cliRule = JSON.parse(created.stdout).data;
    expect(cliRule).toMatchObject({
      threshold: { count: 5, window: '10m' },
      channels: [{ type: 'email', to: 'cli@example.com' }],
    });
    const tested = await runCli(['alerts', 'test', cliRule.id], env);
    expect(tested.stdout).toContain('email');
    await smtp.waitFor('cli@example.com');
    const refused = await runCli(
      ['alerts', 'create', '--name', 'x', '--event', 'nope', '--email', 'a@example.com'],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error [validation_failed]: events.0');
    expect((await runCli(['alerts', 'list'], env)).stdout).toContain('cli');
    expect((await runCli(['alerts', 'delete', cliRule.id], env)).code).toBe(0);
    await sched.alertRules.delete(r.id);
  });
});
