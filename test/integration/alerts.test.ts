import { verifyWebhook } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/src/app/accounts.js';
import { AlertEvaluation } from '../../server/src/app/alerts/evaluate.js';
import { AlertRules } from '../../server/src/app/alerts/rules.js';
import { AlertSender } from '../../server/src/app/alerts/send.js';
import { AlertWatch, WATCH_CACHE_MS } from '../../server/src/app/alerts/watch.js';
import { NotificationChannelService } from '../../server/src/app/directory/chat-and-team.js';
import { destinationGuard } from '../../server/src/app/domains/guard.js';
import type {
  AlertChannels,
  AlertJobs,
  OperatorEvent,
  Outbound,
  OutboundRequest,
  OutboundResult,
} from '../../server/src/app/ports.js';
import { createWaits } from '../../server/src/app/waits.js';
import type { AlertMessage } from '../../server/src/domain/alerts/message.js';
import { createOperatorEvents } from '../../server/src/jobs/alerts.js';
import { rawQuery, openTestDatabase } from '../support/in-process.js';

// The alert use cases in-process on a real PostgreSQL with a clock moved by hand: recording in the caller's
// transaction, evaluation (grouping, crash safety), sending (allowances, signatures, retries) and the late-delivery
// threshold cache. The job ports record what the use cases ask for; the worker's queue is tested end to end in
// test/e2e/alerts.test.ts.
describe('alerts (in-process)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  let quiet: string;
  let now = new Date('2026-11-25T10:00:00.000Z');
  const clock = () => now;
  const waits = createWaits(1);

  /** The job ports as the use cases see them, recording; `fail` makes the next call throw (a crash mid-way). */
  const jobs = {
    evaluations: [] as { accountId: string; at: Date | undefined }[],
    sends: [] as { ids: readonly string[]; at: Date | undefined }[],
    fail: null as null | 'evaluate' | 'send',
  };
  const alertJobs: AlertJobs = {
    async evaluate(_tx, accountId, at) {
      if (jobs.fail === 'evaluate') {
        jobs.fail = null;
        throw new Error('the worker died here');
      }
      jobs.evaluations.push({ accountId, at });
    },
    async send(_tx, ids, at) {
      if (jobs.fail === 'send') {
        jobs.fail = null;
        throw new Error('the worker died here');
      }
      jobs.sends.push({ ids, at });
    },
  };
  const principal = (id: string): Principal => ({
    accountId: id,
    plan: 'business',
    rateLimitFactor: 1,
    keyId: 'test-key',
    scopes: ['read', 'write'],
  });

  let rules: AlertRules;
  let evaluation: AlertEvaluation;
  let watch: AlertWatch;

  beforeAll(async () => {
    t = await openTestDatabase('alerts');
    accountId = await t.newAccount();
    quiet = await t.newAccount();
    rules = new AlertRules({ store: t.database, clock, jobs: alertJobs, allowPrivateDestinations: true });
    evaluation = new AlertEvaluation({ store: t.database, clock, waits, jobs: alertJobs });
    watch = new AlertWatch(t.database, clock);
  });
  afterAll(async () => {
    await t?.close();
  });

  let tick = 0;
  const failure = (account: string, name: string, over: Partial<OperatorEvent> = {}): OperatorEvent => ({
    account_id: account,
    type: 'action.failed',
    // A millisecond apart, as events are: the sample lists them in the order they happened.
    at: new Date(now.getTime() + tick++),
    destination_host: 'billing.example.com',
    subject: { type: 'action', id: '00000000-0000-4000-8000-000000000001' },
    details: { name, mode: 'webhook', dedup_keys: [], attempts: 3, error: 'HTTP 500' },
    ...over,
  });
  const count = async (table: string, account: string) =>
    Number(
      (
        await rawQuery<{ n: string }>(
          t.database.sql,
          `select count(*) as n from ${table} where account_id = $1`,
          [account],
        )
      )[0]!.n,
    );
  const record = (event: OperatorEvent) =>
    t.database.transaction((tx) => createOperatorEvents(alertJobs, watch).record(tx, event));

  it('records an event only when a rule of the account watches its type, with its evaluation job', async () => {
    await rules.create(principal(accountId), {
      name: 'failures',
      events: ['action.failed'],
      channels: [{ type: 'email', to: 'oncall@example.com' }],
    });
    jobs.evaluations.length = 0;
    await record(failure(accountId, 'a'));
    await record(failure(accountId, 'b', { type: 'approval.expired' }));
    await record(failure(quiet, 'c'));
    expect(await count('operator_events', accountId)).toBe(1);
    expect(await count('operator_events', quiet)).toBe(0);
    expect(jobs.evaluations).toEqual([{ accountId, at: undefined }]);

    // An event nobody watches costs no statement: the transaction is not even touched.
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('a statement was made');
        },
      },
    ) as never;
    await createOperatorEvents(alertJobs, watch).record(untouchable, failure(quiet, 'unwatched'));
    await createOperatorEvents(alertJobs, watch).record(
      untouchable,
      failure(accountId, 'x', { type: 'delivery.late' }),
    );

    // A rolled back change records nothing: the event commits with what caused it.
    await t.database
      .transaction(async (tx) => {
        await createOperatorEvents(alertJobs, watch).record(tx, failure(accountId, 'rolled back'));
        throw new Error('the change failed');
      })
      .catch(() => undefined);
    expect(await count('operator_events', accountId)).toBe(1);
  });

  it('groups events into one message per channel at group_wait, and a crash mid-evaluation loses and doubles nothing', async () => {
    await record(failure(accountId, 'c'));
    await record(failure(accountId, 'd'));

    // A crash before the evaluation commits: the events stay, the rule's state does not move.
    jobs.fail = 'evaluate';
    await expect(evaluation.evaluate(accountId)).rejects.toThrow('the worker died here');
    expect(await count('operator_events', accountId)).toBe(3);

    await evaluation.evaluate(accountId);
    expect(await count('operator_events', accountId)).toBe(0);
    const waiting = (await rules.list(accountId, { page: 1, per_page: 10 })).data[0]!;
    expect(waiting.state).toMatchObject({ pending: 3, next_alert_at: '2026-11-25T10:02:00.000Z' });
    expect(jobs.evaluations.at(-1)).toEqual({ accountId, at: new Date('2026-11-25T10:02:00.000Z') });

    // The wake-up: a crash while writing the message rolls it back; the next one writes it once.
    now = new Date('2026-11-25T10:02:00.000Z');
    jobs.fail = 'send';
    await expect(evaluation.evaluate(accountId, now)).rejects.toThrow('the worker died here');
    expect(await count('alert_notifications', accountId)).toBe(0);
    await evaluation.evaluate(accountId, now);
    await evaluation.evaluate(accountId, now);
    const [rule] = (await rules.list(accountId, { page: 1, per_page: 10 })).data;
    const detail = await rules.get(accountId, rule!.id);
    expect(detail.recent_notifications).toEqual([
      expect.objectContaining({ type: 'email', status: 'pending', count: 3, test: false }),
    ]);
    expect(detail.state).toEqual({
      pending: 0,
      next_alert_at: null,
      last_alerted_at: '2026-11-25T10:02:00.000Z',
    });
    expect(jobs.sends.at(-1)!.ids).toEqual([detail.recent_notifications[0]!.id]);
  });

  it('sends through the channel port once the allowance is taken, and a signed webhook retried, then abandoned, never alerting on itself', async () => {
    const messages: AlertMessage[] = [];
    const channels: AlertChannels = {
      async send(target, message) {
        messages.push(message);
        return target.channel === 'email' ? { ok: true, via: 'provider' } : { ok: false, via: 'provider' };
      },
    };
    const requests: OutboundRequest[] = [];
    const answers: OutboundResult[] = [];
    const outbound: Outbound = {
      async send(req) {
        requests.push(req);
        return answers.shift()!;
      },
    };
    const warned: string[] = [];
    const sender = new AlertSender({
      store: t.database,
      clock,
      waits,
      jobs: alertJobs,
      channels,
      outbound,
      log: { warn: (_f, m) => warned.push(m) },
      // No jitter: the retry waits are the callback's exactly.
      random: () => 0.5,
    });
    const [rule] = (await rules.list(accountId, { page: 1, per_page: 10 })).data;
    const [email] = (await rules.get(accountId, rule!.id)).recent_notifications;
    await sender.send(email!.id);
    await sender.send(email!.id); // a retried job: already sent, nothing happens
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      kind: 'alert',
      ruleName: 'failures',
      count: 3,
      events: ['action.failed'],
    });
    expect(messages[0]!.lines[0]).toBe(
      'Action "a" (00000000-0000-4000-8000-000000000001) to billing.example.com failed after 3 attempts: HTTP 500',
    );
    const usage = await rawQuery<{ used: number }>(
      t.database.sql,
      `select used from usage_counters where account_id = $1 and metric = 'emails'`,
      [accountId],
    );
    expect(usage).toEqual([{ used: 1 }]);

    // A webhook channel, tested: signed like webhook deliveries, retried on 5xx, failed for good after 3 tries.
    const hook = await rules.create(principal(accountId), {
      name: 'to a receiver',
      events: ['bulk_operation.completed'],
      channels: [{ type: 'webhook', url: 'http://127.0.0.1:9/alerts', secret: 'alert-secret-0123456789' }],
    });
    expect(hook.channels).toEqual([{ type: 'webhook', url: 'http://127.0.0.1:9/alerts', signed: true }]);
    expect(JSON.stringify(await rules.get(accountId, hook.id))).not.toContain('alert-secret');
    const tested = await rules.test(accountId, hook.id);
    const id = tested.notifications[0]!.id;
    const failed: OutboundResult = {
      kind: 'response',
      status: 503,
      headers: {},
      bodyExcerpt: '',
      bodyTruncated: false,
      durationMs: 3,
    };
    answers.push(failed, failed, failed);
    const eventsBefore = await count('operator_events', accountId);
    for (let i = 0; i < 4; i++) await sender.send(id);
    expect(requests).toHaveLength(3);
    const [first] = requests;
    expect(
      verifyWebhook({
        secret: 'alert-secret-0123456789',
        headers: first!.headers,
        body: first!.body as string,
        now,
      }),
    ).toMatchObject({ ok: true, id });
    expect(JSON.parse(first!.body as string)).toMatchObject({
      id,
      type: 'alert',
      test: true,
      rule: { id: hook.id, name: 'to a receiver' },
      events: ['bulk_operation.completed'],
      sample: [
        expect.objectContaining({
          type: 'bulk_operation.completed',
          summary: expect.stringContaining('Bulk retry'),
        }),
      ],
    });
    expect(jobs.sends.slice(-2).map((s) => s.at?.getTime())).toEqual([
      now.getTime() + 60_000,
      now.getTime() + 300_000,
    ]);
    expect((await rules.get(accountId, hook.id)).recent_notifications[0]).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: 'HTTP 503',
    });
    expect(warned.filter((m) => m === 'alert not sent')).toHaveLength(3);
    // An alert is not an action: its failure records no operator event, so no rule can alert on it.
    expect(await count('operator_events', accountId)).toBe(eventsBefore);
  });

  it("counts each Slack and Teams alert as the owner's send to the webhook's host; past the threshold it is refused and says why", async () => {
    const owner = await t.newAccount();
    const countDestination = destinationGuard({ perDay: 2, perMonth: 100 });
    const guarded = new AlertRules({
      store: t.database,
      clock,
      jobs: alertJobs,
      allowPrivateDestinations: true,
      countDestination,
    });
    const chats = new NotificationChannelService(t.database, { allowPrivateDestinations: true });
    const slack = await chats.create(owner, 'business', {
      name: 'ops',
      type: 'slack',
      webhook_url: 'https://hooks.chat-standin.example/services/T0/B0/slack-secret',
    });
    const teams = await chats.create(owner, 'business', {
      name: 'eng',
      type: 'teams',
      webhook_url: 'https://hooks.chat-standin.example/webhookb2/teams-secret',
    });
    const rule = await guarded.create(principal(owner), {
      name: 'chat',
      events: ['action.failed'],
      channels: [
        { type: 'slack', channel: slack.id },
        { type: 'teams', channel: teams.id },
      ],
    });
    const sent: string[] = [];
    const sender = new AlertSender({
      store: t.database,
      clock,
      waits,
      jobs: alertJobs,
      channels: {
        async send(target) {
          sent.push(target.channel);
          return { ok: true, via: 'provider' };
        },
      },
      outbound: { send: async () => ({ kind: 'network_error', message: 'unused', durationMs: 0 }) as never },
      log: { warn: () => {} },
      countDestination,
    });
    const first = await guarded.test(owner, rule.id);
    for (const n of first.notifications) await sender.send(n.id);
    expect(sent).toEqual(['slack', 'teams']);
    const usage = await rawQuery<{ domain: string; day_count: number }>(
      t.database.sql,
      'select domain, day_count from domains where account_id = $1 order by domain',
      [owner],
    );
    expect(usage).toEqual(expect.arrayContaining([{ domain: 'hooks.chat-standin.example', day_count: 2 }]));
    // The host is at its limit: the next alerts are not sent, and their notifications say why.
    const second = await guarded.test(owner, rule.id);
    for (const n of second.notifications) await sender.send(n.id);
    expect(sent).toEqual(['slack', 'teams']);
    const shown = (await guarded.get(owner, rule.id)).recent_notifications.filter((n) =>
      second.notifications.some((m) => m.id === n.id),
    );
    expect(shown.map((n) => n.status)).toEqual(['failed', 'failed']);
    for (const n of shown) expect(n.error).toMatch(/^not sent: hooks\.chat-standin\.example is not verified/);
    // A new rule to a channel on that host is refused when saved, naming the channel.
    await expect(
      guarded.create(principal(owner), {
        name: 'more chat',
        events: ['action.failed'],
        channels: [
          { type: 'email', to: 'ops@example.com' },
          { type: 'slack', channel: slack.id },
        ],
      }),
    ).rejects.toMatchObject({
      status: 422,
      errors: { 'channels.1.channel': [expect.stringContaining('not verified')] },
    });
  });

  it('refuses a webhook to a private address (SSRF policy) and chat channels on plans without them', async () => {
    const guarded = new AlertRules({
      store: t.database,
      clock,
      jobs: alertJobs,
      allowPrivateDestinations: false,
    });
    const refused = await guarded
      .create(principal(accountId), {
        name: 'inside',
        events: ['action.failed'],
        channels: [{ type: 'webhook', url: 'https://127.0.0.1/alerts' }],
      })
      .catch((err: { status: number; errors: unknown }) => err);
    expect(refused).toMatchObject({
      status: 422,
      errors: { 'channels.0.url': ['must not target a private, loopback, link-local or reserved address'] },
    });
    const pro = await guarded
      .create(
        { ...principal(quiet), plan: 'pro' },
        {
          name: 'chat',
          events: ['action.failed'],
          channels: [{ type: 'teams', channel: '00000000-0000-4000-8000-000000000000' }],
        },
      )
      .catch((err: { status: number; errors: unknown }) => err);
    expect(pro).toMatchObject({
      status: 422,
      errors: { 'channels.0.type': ['teams alerts need the business plan (this account is on pro)'] },
    });
  });

  it('keeps the newest 100 messages of a rule (pending ones always)', async () => {
    const r = await rules.create(principal(quiet), {
      name: 'history',
      events: ['action.failed'],
      channels: [{ type: 'email', to: 'history@example.com' }],
    });
    await rules.test(quiet, r.id);
    // 104 earlier messages, sent, each a millisecond older than the last.
    await rawQuery(t.database.sql, `update alert_notifications set status = 'sent' where rule_id = $1`, [
      r.id,
    ]);
    await rawQuery(
      t.database.sql,
      `insert into alert_notifications
         select gen_random_uuid(), account_id, rule_id, test, channel_index, channel, message, status, 1, null,
                created_at - n * interval '1 millisecond', created_at
           from alert_notifications, generate_series(1, 104) n where rule_id = $1`,
      [r.id],
    );
    now = new Date(now.getTime() + 1);
    await rules.test(quiet, r.id);
    const rows = await rawQuery<{ status: string; n: string }>(
      t.database.sql,
      'select status, count(*) as n from alert_notifications where rule_id = $1 group by status order by status',
      [r.id],
    );
    expect(rows).toEqual([
      { status: 'pending', n: '1' },
      { status: 'sent', n: '99' },
    ]);
  });

  it('caches what an account watches and its smallest late_after; a change is forgotten, at worst it expires', async () => {
    const cache = new AlertWatch(t.database, clock);
    expect(await cache.lateAfterMs(accountId)).toBeNull();
    expect(await cache.watches(accountId, 'delivery.late')).toBe(false);
    const late = await rules.create(principal(accountId), {
      name: 'late',
      events: ['delivery.late'],
      late_after: '30s',
      channels: [{ type: 'email', to: 'oncall@example.com' }],
    });
    // Unannounced (no LISTEN connection here): trusted until it expires.
    expect(await cache.lateAfterMs(accountId)).toBeNull();
    now = new Date(now.getTime() + WATCH_CACHE_MS);
    expect(await cache.lateAfterMs(accountId)).toBe(30_000);
    expect(await cache.watches(accountId, 'delivery.late')).toBe(true);
    // Announced (the worker hears the rule change at commit): read again at once.
    await rules.update(principal(accountId), late.id, { late_after: null });
    expect(await cache.lateAfterMs(accountId)).toBe(30_000);
    cache.forget(accountId);
    expect(await cache.lateAfterMs(accountId)).toBe(60_000);
    await rules.update(principal(accountId), late.id, { enabled: false });
    cache.forget();
    expect(await cache.watches(accountId, 'delivery.late')).toBe(false);
    expect(await cache.lateAfterMs(quiet)).toBeNull();
  });
});
