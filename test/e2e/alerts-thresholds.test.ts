import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/**
 * Alert channels inside the destination thresholds: a host name that resolves
 * nowhere stands for a third party's unverified host (an alert to it is attempted and fails at DNS; one refused by
 * the threshold is never attempted and says so). Each alert send counts as the owner's
 * own send to it; past its threshold a rule naming it cannot be saved and a send is refused and recorded; a rule's
 * test runs at most once a minute.
 */
describe('alert channels and destination thresholds', { timeout: 120_000 }, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let key: string;
  const victim = 'victim.alerts-test.example';
  const hook = `https://${victim}`;
  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);

  beforeAll(async () => {
    db = await createTestDatabase('alerts_thresholds');
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_DOMAIN_DAY_LIMIT: '3',
        SCHED_TIME_SCALE: '300',
      },
    });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("counts each alert send as the owner's, refuses it past the threshold (recorded), and refuses the rule at save", async () => {
    const rule = await call('POST', '/v1/alert-rules', {
      name: 'to a third party',
      events: ['action.failed'],
      channels: [
        { type: 'webhook', url: `${hook}/alert-a` },
        { type: 'webhook', url: `${hook}/alert-b` },
      ],
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const id = rule.body.data.id as string;
    // The limit counts per UTC minute: start well inside one, and ask again at once.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const tested = await call('POST', `/v1/alert-rules/${id}/test`);
    expect(tested.status).toBe(202);
    // A second test within the minute is refused before it sends anything.
    const again = await call('POST', `/v1/alert-rules/${id}/test`);
    expect([again.status, again.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const sent = await eventually(async () => {
      const view = (await call('GET', `/v1/alert-rules/${id}`)).body.data;
      return view.recent_notifications.every((n: { status: string }) => n.status !== 'pending')
        ? view.recent_notifications
        : null;
    });
    // Attempted (the name resolves nowhere on this host), not refused by the threshold.
    for (const n of sent) expect(n.error).not.toMatch(/^not sent/);
    // Two sends counted: the third of the day is an action's, the fourth is refused.
    const domain = await call('GET', `/v1/domains/${victim}`);
    expect(domain.status, JSON.stringify(domain.body)).toBe(200);
    expect(domain.body.data.usage.today).toBe(2);
    expect(
      (await call('POST', '/v1/actions', { schedule: { wait: '1h' }, request: { url: `${hook}/own` } }))
        .status,
    ).toBe(201);
    const over = await call('POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: `${hook}/own` },
    });
    expect(over.status).toBe(422);

    // The refused second test sent nothing: only the action above was counted since.
    expect((await call('GET', `/v1/domains/${victim}`)).body.data.usage.today).toBe(3);

    const refused = await call('POST', '/v1/alert-rules', {
      name: 'new rule to it',
      events: ['action.failed'],
      channels: [
        { type: 'email', to: 'ops@example.com' },
        { type: 'webhook', url: `${hook}/alert-c` },
      ],
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['channels.1.url']);
    expect(refused.body.errors['channels.1.url'][0]).toContain('not verified');
    // The rule itself stays editable: its channels, kept as they were, are not refused for what their alerts spent.
    const renamed = await call('PUT', `/v1/alert-rules/${id}`, { name: 'renamed' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const updated = await call('PUT', `/v1/alert-rules/${id}`, {
      channels: [{ type: 'webhook', url: `${hook}/alert-d` }],
    });
    expect(updated.status).toBe(422);
    expect(Object.keys(updated.body.errors)).toEqual(['channels.0.url']);
  });

  it('a send past the threshold is skipped and says why on the notification', async () => {
    // The rule is saved while the host is under its limit.
    const other = 'other.alerts-test.example';
    const otherHook = `https://${other}`;
    const rule = await call('POST', '/v1/alert-rules', {
      name: 'saved in time',
      events: ['action.failed'],
      channels: [{ type: 'webhook', url: `${otherHook}/late-alert` }],
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    for (let i = 0; i < 3; i++)
      expect(
        (
          await call('POST', '/v1/actions', {
            schedule: { wait: '1h' },
            request: { url: `${otherHook}/own` },
          })
        ).status,
      ).toBe(201);
    const tested = await call('POST', `/v1/alert-rules/${rule.body.data.id}/test`);
    expect(tested.status).toBe(202);
    const notification = await eventually(async () => {
      const view = (await call('GET', `/v1/alert-rules/${rule.body.data.id}`)).body.data;
      const n = view.recent_notifications[0];
      return n && n.status !== 'pending' ? n : null;
    });
    expect(notification.status).toBe('failed');
    expect(notification.error).toMatch(/^not sent: .*not verified/);
  });
});
