import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { linkIn, startSmtpServer } from '../support/peers.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/**
 * Destination thresholds count sends, not creates, and a recurring
 * approval asks again on its schedule. `http://localhost:<port>` reaches the loopback receiver while
 * counting as an unverified host name (a loopback IP literal is never counted); the day threshold is 3 here, and
 * SCHED_TIME_SCALE=300 makes a 5-minute series run every second. Each test works in its own account, since the
 * counts are per account.
 */
describe('sends counted when they are made; recurring approvals re-ask', { timeout: 120_000 }, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let sql: pg.Client;
  /** The receiver, under a name that counts. */
  let named: string;

  async function account(name: string): Promise<string> {
    const out = await runCli(
      ['accounts', 'create', '--name', name, '--plan', 'business', '--json'],
      server.env,
    );
    return JSON.parse(out.stdout).api_key as string;
  }
  const as = (key: string) => (method: string, path: string, body?: unknown) =>
    api(server, key, method, path, body);
  /**
   * The distinct sends a path received, by a header that names the send: delivery is at least once, so a loaded
   * machine may see an attempt that timed out arrive twice.
   */
  const sends = (path: string, header: string) =>
    new Set(rx.to(path).map((r) => String(r.headers[header]))).size;

  beforeAll(async () => {
    db = await createTestDatabase('recurring_sends');
    rx = await startReceiver();
    smtp = await startSmtpServer();
    named = `http://localhost:${new URL(rx.url).port}`;
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_TIME_SCALE: '300',
        SCHED_DOMAIN_DAY_LIMIT: '3',
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_SMTP_URL: smtp.url,
        SCHED_EMAIL_FROM: 'sched <approvals@example.com>',
      },
    });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await server?.stop();
    await smtp?.close();
    await rx?.close();
    await db?.drop();
  });

  it('each occurrence of a series counts when it is sent; past the threshold it is blocked and the series goes on the next day', async () => {
    const call = as(await account('series'));
    const created = await call('POST', '/v1/actions', {
      name: 'every 5 minutes',
      schedule: { wait: '1s' },
      request: { url: `${named}/series` },
      // Signed, so each occurrence carries its own webhook-id.
      webhook_secret: 'series-secret-0123456789',
      recurrence: { frequency: 5, unit: 'm', end_type: 'never' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    // The create counted the first occurrence; the second and third are counted as they are sent.
    const blocked = await eventually(async () => {
      const a = (await call('GET', `/v1/actions/${id}`)).body.data;
      return a.delivery_attempts.some((t: { error_class: string }) => t.error_class === 'blocked') ? a : null;
    }, 30_000);
    const seen = JSON.stringify(blocked.delivery_attempts);
    expect(sends('/series', 'webhook-id'), seen).toBe(3);
    expect(blocked.recurrence_count, seen).toBe(3);
    const attempt = blocked.delivery_attempts.find(
      (t: { error_class: string }) => t.error_class === 'blocked',
    );
    expect(attempt).toMatchObject({ outcome: 'permanent', status_code: null });
    expect(attempt.error).toMatch(/^not sent: localhost is not verified .*; the series goes on at /);
    // The series is not stopped: it waits for the next UTC day, when the threshold opens again.
    expect(['scheduled', 'resolved'], seen).toContain(blocked.status);
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(new Date(blocked.scheduled_for).getTime()).toBeGreaterThanOrEqual(tomorrow.getTime());
    expect(blocked.last_attempt.error_class).toBe('blocked');
    const usage = (await call('GET', '/v1/domains/localhost')).body.data.usage;
    expect(usage.today).toBe(3);
    // The owner's own create to that host is refused the same day: the series spent the owner's threshold.
    const own = await call('POST', '/v1/actions', {
      name: 'own',
      schedule: { wait: '1d' },
      request: { url: `${named}/own` },
    });
    expect(own.status).toBe(422);
    expect(sends('/series', 'webhook-id')).toBe(3);
  });

  it("an accepted action's callbacks all arrive and count, even past their host's threshold; later creates naming that host are a 422 on callback_url", async () => {
    const call = as(await account('callbacks'));
    // The request goes to a loopback literal (never counted): only the callbacks count, 5 of them past a limit of 3.
    const created = await call('POST', '/v1/actions', {
      name: 'cb series',
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/plain` },
      callback_url: `${named}/callbacks`,
      recurrence: { frequency: 5, unit: 'm', end_type: 'count', max_occurrences: 5 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rows = await eventually(async () => {
      const { rows } = await sql.query<{ status: string; last_error: string | null }>(
        `select status, last_error from callback_deliveries where action_id = $1`,
        [created.body.data.id],
      );
      return rows.length === 5 && rows.every((r) => r.status !== 'pending') ? rows : null;
    }, 60_000);
    expect(rows.map((r) => r.status)).toEqual(Array(5).fill('delivered'));
    expect(sends('/callbacks', 'x-sched-delivery-id')).toBe(5);
    expect((await call('GET', '/v1/domains/localhost')).body.data.usage.today).toBe(5);

    // The host has no room left: a new action, batch item or chain naming it is refused at create, nothing made.
    const before = (await call('GET', '/v1/actions?per_page=1')).body.meta.total;
    const refused = await call('POST', '/v1/actions', {
      name: 'one more',
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/plain` },
      callback_url: `${named}/callbacks`,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.callback_url[0]).toMatch(/^localhost is not verified/);
    const batch = await call('POST', '/v1/actions/batch', {
      actions: [
        { name: 'ok', schedule: { wait: '1h' }, request: { url: `${rx.url}/plain` } },
        {
          name: 'no',
          schedule: { wait: '1h' },
          request: { url: `${rx.url}/plain` },
          callback_url: `${named}/callbacks`,
        },
      ],
    });
    expect(batch.status).toBe(422);
    expect(Object.keys(batch.body.errors)).toEqual(['actions.1.callback_url']);
    const chain = await call('POST', '/v1/chains', {
      name: 'cb chain',
      callback_url: `${named}/callbacks`,
      steps: [
        { name: 'w1', type: 'wait', delay: '1s' },
        { name: 'w2', type: 'wait', delay: '1s' },
      ],
    });
    expect(chain.status).toBe(422);
    expect(Object.keys(chain.body.errors)).toEqual(['callback_url']);
    expect((await call('GET', '/v1/actions?per_page=1')).body.meta.total).toBe(before);
    expect((await call('GET', '/v1/chains')).body.meta.total).toBe(0);
    expect((await call('GET', '/v1/domains/localhost')).body.data.usage.today).toBe(5);
  });

  /** Fires a template's public URL, as an anonymous caller does. */
  const fire = async (triggerUrl: string) =>
    (
      await fetch(`${server.url}${new URL(triggerUrl).pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).status;

  /** The owner's own creates to the counted host: all three of a fresh day's threshold, then the 422. */
  async function ownAllowanceIsWhole(call: ReturnType<typeof as>) {
    const own = [];
    for (let i = 0; i < 4; i++) {
      own.push(
        (
          await call('POST', '/v1/actions', {
            name: 'own',
            schedule: { wait: '1d' },
            request: { url: `${named}/own` },
          })
        ).status,
      );
    }
    expect(own).toEqual([201, 201, 201, 422]);
  }

  it("callbacks of triggered actions count apart from the owner's own threshold", async () => {
    const call = as(await account('trigger-callbacks'));
    const template = await call('POST', '/v1/templates', {
      name: 'Triggered',
      mode: 'webhook',
      request_config: { url: `${rx.url}/triggered` },
      callback_url: `${named}/trigger-callbacks`,
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    // Before the k-th trigger at most k-1 callbacks were counted: the first three always find room.
    for (let i = 0; i < 3; i++) expect(await fire(template.body.data.trigger_url)).toBe(201);
    const rows = await eventually(async () => {
      const { rows } = await sql.query<{ status: string }>(
        `select c.status from callback_deliveries c join actions a on a.id = c.action_id
          where a.name = 'Triggered' and c.status <> 'pending'`,
      );
      return rows.length === 3 ? rows : null;
    }, 30_000);
    expect(rows.map((r) => r.status)).toEqual(Array(3).fill('delivered'));
    expect(sends('/trigger-callbacks', 'x-sched-delivery-id')).toBe(3);
    // The triggers' counters are spent: the next trigger is refused at once, its callback host named.
    expect(await fire(template.body.data.trigger_url)).toBe(422);
    await ownAllowanceIsWhole(call);
  });

  it("the steps of chains a trigger started count apart from the owner's own threshold", async () => {
    const call = as(await account('trigger-chains'));
    const template = await call('POST', '/v1/templates', {
      name: 'Triggered chain',
      type: 'chain',
      chain_steps: [
        { name: 'call', type: 'http_call', url: `${named}/trigger-steps` },
        { name: 'then', type: 'wait', delay: '1s' },
      ],
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    for (let i = 0; i < 4; i++) expect(await fire(template.body.data.trigger_url)).toBe(201);
    const chains = (await call('GET', '/v1/chains')).body.data as { id: string }[];
    expect(chains).toHaveLength(4);
    const ended = await eventually(async () => {
      const views = await Promise.all(
        chains.map(async (c) => (await call('GET', `/v1/chains/${c.id}`)).body.data),
      );
      return views.every((c) => c.status === 'completed' || c.status === 'failed') ? views : null;
    }, 30_000);
    expect(ended.filter((c) => c.status === 'completed')).toHaveLength(3);
    expect(ended.find((c) => c.status === 'failed').steps[0].error).toMatch(/localhost is not verified/);
    expect(sends('/trigger-steps', 'x-sched-action-id')).toBe(3);
    await ownAllowanceIsWhole(call);
  });

  it('S19: a recurring approval asks again on its schedule with fresh links after each granted round', async () => {
    const call = as(await account('approvals'));
    const created = await call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Weekly payout',
      schedule: { wait: '1s' },
      gate: {
        message: 'Pay out?',
        recipients: ['treasurer@example.com'],
        channels: ['email'],
        timeout: '1d',
      },
      // The post-approval request goes to a counted host: each round's request counts when it is sent. Signed, so
      // each round's request carries its own webhook-id.
      request: { url: `${named}/payout` },
      webhook_secret: 'payout-secret-0123456789',
      recurrence: { frequency: 5, unit: 'm', end_type: 'count', max_occurrences: 2 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    const [first] = await smtp.waitFor('treasurer@example.com', 1, 20_000);
    const firstLink = linkIn(first!.text);
    const answer = (link: string) =>
      fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ decision: 'confirm' }),
      });
    // A round takes answers once it is recorded as sent (the message may arrive a moment before).
    const awaiting = () =>
      eventually(async () => {
        const a = (await call('GET', `/v1/actions/${id}`)).body.data;
        return a.status === 'awaiting_response' ? a : null;
      }, 20_000);
    const payouts = (n: number) => eventually(async () => sends('/payout', 'webhook-id') >= n, 20_000);
    await awaiting();
    expect((await answer(firstLink)).status).toBe(200);
    await payouts(1);
    // The next occurrence is a new round: a new message with a new link; the old link is dead.
    const mails = await smtp.waitFor('treasurer@example.com', 2, 20_000);
    const secondLink = linkIn(mails[1]!.text);
    expect(secondLink).not.toBe(firstLink);
    // The first round's links died with it (as a retried approval's do).
    expect([404, 410]).toContain((await answer(firstLink)).status);
    const between = await awaiting();
    expect(between.recurrence_count).toBe(1);
    expect(between.recipients[0].status).toBe('pending');
    expect((await answer(secondLink)).status).toBe(200);
    await payouts(2);
    const done = await eventually(async () => {
      const a = (await call('GET', `/v1/actions/${id}`)).body.data;
      return a.status === 'executed' ? a : null;
    });
    expect(done.recurrence_count).toBe(2);
    expect(sends('/payout', 'webhook-id')).toBe(2);
    // Its create counted the first round's request; the second round's counted when it was sent.
    expect((await call('GET', '/v1/domains/localhost')).body.data.usage.today).toBe(2);
    // Two rounds asked, each with its own link (a round sent twice under load would repeat its link).
    const links = smtp.mails.filter((m) => m.to.includes('treasurer@example.com')).map((m) => linkIn(m.text));
    expect(new Set(links)).toEqual(new Set([firstLink, secondLink]));
  });
});
