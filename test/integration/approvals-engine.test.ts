import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PauseService } from '../../server/src/app/actions/pause.js';
import { reopenGate } from '../../server/src/app/approvals/outcomes.js';
import { createWaits } from '../../server/src/app/waits.js';
import { ApprovalRounds } from '../../server/src/app/approvals/rounds.js';
import { GateTimeouts } from '../../server/src/app/approvals/timers.js';
import type { GateTimer, GateTimers } from '../../server/src/app/ports.js';
import type {
  ApprovalMessage,
  ChannelAdapter,
  ChannelName,
  ChannelTarget,
} from '../../server/src/channels/types.js';
import { createChannels } from '../../server/src/channels/registry.js';
import { type ActionRow, insertAction } from '../../server/src/persistence/actions.js';
import { findGateAction, updateGate } from '../../server/src/persistence/approvals/gates.js';
import {
  createSqlOutbox,
  findOutboxMessage,
  listOutboxMessages,
} from '../../server/src/persistence/approvals/outbox-messages.js';
import {
  insertRecipients,
  recipientsOf,
  recordAnswer,
} from '../../server/src/persistence/approvals/recipients.js';
import {
  findResponseToken,
  mintResponseTokens,
} from '../../server/src/persistence/approvals/response-tokens.js';
import type { Database } from '../../server/src/persistence/database.js';
import type { StoredGate } from '../../server/src/persistence/entities/stored.js';
import { consumeUsage, periodKey, usageOf } from '../../server/src/persistence/usage-counters.js';
import { monthPeriod } from '../../server/src/domain/quota/plans.js';
import { openTestDatabase } from '../support/in-process.js';

// The approval rounds and gate timers (app/approvals/) and the approval persistence in-process, on a real PostgreSQL of this file's own, with
// channel adapters that record what they are given.
describe('approval engine', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  const now = new Date();
  const period = periodKey(monthPeriod(now));
  const sent: { target: ChannelTarget; message: ApprovalMessage }[] = [];
  const logLines: string[] = [];
  // Every log call at every level, as the JSON a logger would write.
  const logger = new Proxy(
    {},
    {
      get:
        () =>
        (...args: unknown[]) =>
          logLines.push(JSON.stringify(args)),
    },
  ) as Parameters<typeof createChannels>[1]['logger'];
  const recording = (name: ChannelName): ChannelAdapter => ({
    name,
    configured: true,
    async send(target, message) {
      if (message.kind === 'alert') throw new Error('no alert is sent in these tests');
      sent.push({ target, message });
      return { ok: true, via: 'provider' };
    },
  });
  const channels = Object.fromEntries(
    (['email', 'sms', 'slack', 'teams', 'push'] as const).map((c) => [c, recording(c)]),
  ) as Record<ChannelName, ChannelAdapter>;
  // The GateTimers port, recording: the timers a round sets, with their time.
  const timersSet: { timer: GateTimer; at: Date }[] = [];
  const timers: GateTimers = {
    async set(_tx, timer, at) {
      timersSet.push({ timer, at });
    },
  };
  const rounds = () =>
    new ApprovalRounds({
      store: db,
      timers,
      channels: { send: (target, message) => channels[target.channel].send(target, message) },
      log: logger,
      clock: () => now,
      waits: createWaits(),
      publicUrl: () => 'http://sched.test',
      scheduler: { schedule: async () => undefined, announce: async () => undefined },
      callbacks: { enqueue: async () => undefined, redeliver: async () => undefined },
    });
  const gateTimeouts = () =>
    new GateTimeouts({
      store: db,
      timers,
      scheduler: { schedule: async () => undefined, announce: async () => undefined },
      callbacks: { enqueue: async () => undefined, redeliver: async () => undefined },
      clock: () => now,
      waits: createWaits(),
      rounds: rounds(),
    });

  const gate = (message: string): StoredGate => ({
    message,
    channels: ['email', 'push'],
    buttons: ['Yes', 'No'],
    confirmation_mode: 'first_response',
    max_snoozes: 1,
    snooze_count: 0,
    timeout: '1d',
    timeout_ms: 86_400_000,
    on_timeout: 'cancel',
    escalation: null,
    sent_at: null,
    expires_at: null,
    escalated_at: null,
    post_approval_action_id: null,
  });

  /** An approval action claimed for its first round (status executing), with its recipients. */
  async function claimedApproval(
    accountId: string,
    message: string,
    recipients: { address: string; targets: ChannelTarget[] }[],
  ): Promise<ActionRow> {
    const row = await insertAction(db.sql, {
      id: randomUUID(),
      traceparent: null,
      created_via: 'api',
      counted_occurrence: null,
      account_id: accountId,
      name: 'Ship it',
      description: null,
      mode: 'approval',
      status: 'executing',
      timezone: 'UTC',
      scheduled_for: now,
      next_attempt_at: now,
      idempotency_key: null,
      dedup_keys: [],
      max_attempts: 3,
      retry_strategy: 'exponential',
      request: null,
      webhook_secret: null,
      callback_url: null,
      coordination: null,
      recurrence: null,
      recurrence_anchor: null,
      gate: gate(message),
      chain_id: null,
      chain_step_index: null,
      created_at: now,
      updated_at: now,
    });
    await insertRecipients(
      db.sql,
      row.id,
      'recipient',
      recipients.map((r) => ({ reference: r.address, displayName: r.address, ...r })),
      now,
    );
    return row;
  }

  const subscription = {
    endpoint: 'https://push.example.com/send/secret-capability-path',
    keys: { p256dh: 'p256dh-key', auth: 'auth-key' },
  };

  beforeAll(async () => {
    t = await openTestDatabase('approvals_engine');
    db = t.database;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('renders a round once: every target gets the same normalised body and its own link', async () => {
    sent.length = 0;
    const accountId = await t.newAccount('business');
    const row = await claimedApproval(accountId, '  Ship it?   \r\n\r\n\r\n\r\nNow.\t\t', [
      { address: 'a@example.com', targets: [{ channel: 'email', email: 'a@example.com' }] },
      { address: 'b@example.com', targets: [{ channel: 'email', email: 'b@example.com' }] },
    ]);
    await rounds().sendRound(row);
    expect(sent).toHaveLength(2);
    expect(sent.map((s) => s.message.body)).toEqual(['Ship it?\n\nNow.', 'Ship it?\n\nNow.']);
    const links = sent.map((s) => s.message.responseUrl);
    expect(new Set(links).size).toBe(2);
    const back = await findResponseToken(db.sql, links[0]!.split('/r/')[1]!);
    expect(back?.action_id).toBe(row.id);
  });

  it('counts push against the plan quota and refuses it when spent', async () => {
    sent.length = 0;
    const accountId = await t.newAccount('free');
    const row = await claimedApproval(accountId, 'Push?', [
      {
        address: 'p@example.com',
        targets: [
          { channel: 'email', email: 'p@example.com' },
          { channel: 'push', subscription },
        ],
      },
    ]);
    expect(
      await consumeUsage(db.sql, { accountId, period, metric: 'push_messages', limit: null, amount: 100 }),
    ).toBe(true);
    await rounds().sendRound(row);
    expect(sent.map((s) => s.target.channel)).toEqual(['email']);
    const notes = await t.database.sql
      .selectFrom('notifications')
      .select(['channel', 'ok', 'error'])
      .where('action_id', '=', row.id)
      .orderBy('channel')
      .execute();
    expect(notes).toEqual([
      { channel: 'email', ok: true, error: null },
      { channel: 'push', ok: false, error: 'the monthly push_messages allowance of the plan is spent' },
    ]);

    // Under the quota, a push is sent and counted.
    sent.length = 0;
    const other = await t.newAccount('free');
    await rounds().sendRound(
      await claimedApproval(other, 'Push?', [{ address: 'q', targets: [{ channel: 'push', subscription }] }]),
    );
    expect(sent.map((s) => s.target.channel)).toEqual(['push']);
    expect(await usageOf(db.sql, other, period)).toEqual({ push_messages: 1 });
  });

  it('an unconfigured channel keeps destination and link in the outbox; the log line describes the target only', async () => {
    logLines.length = 0;
    const accountId = await t.newAccount('business');
    const row = await claimedApproval(accountId, 'Kept', []);
    // No VAPID variables: push messages go to the outbox, through the registry as the server wires it.
    const unconfigured = createChannels({}, { outbox: createSqlOutbox(db, () => now), logger });
    const link = 'http://sched.test/r/live-token-0123456789';
    const receipt = await unconfigured.push.send(
      { channel: 'push', subscription },
      { ...sampleMessage(row.id), responseUrl: link },
    );
    expect(receipt).toEqual({ ok: true, via: 'outbox' });
    const [kept] = await listOutboxMessages(db.sql, { limit: 5, action: row.id });
    expect(kept).toMatchObject({
      account_id: accountId,
      channel: 'push',
      destination: subscription.endpoint,
    });
    expect(kept!.created_at).toEqual(now);
    expect((await findOutboxMessage(db.sql, kept!.id))?.rendered).toContain(link);
    expect(await listOutboxMessages(db.sql, { limit: 5, account: randomUUID() })).toEqual([]);
    const log = logLines.join('\n');
    expect(log).toContain('push subscription at https://push.example.com');
    expect(log).not.toContain('secret-capability-path');
    expect(log).not.toContain('live-token');
  });

  it("an escalation timer of an earlier round does not escalate the current one; the current round's does", async () => {
    sent.length = 0;
    const accountId = await t.newAccount('business');
    const inserted = await claimedApproval(accountId, 'Anyone?', [
      { address: 'late@example.com', targets: [{ channel: 'email', email: 'late@example.com' }] },
    ]);
    const escalation: StoredGate['escalation'] = {
      contacts: ['boss@example.com'],
      after_hours: 1,
      recipients: [
        {
          reference: 'boss@example.com',
          address: 'boss@example.com',
          displayName: 'boss',
          targets: [{ channel: 'email', email: 'boss@example.com' }],
        },
      ],
    };
    await updateGate(db.sql, inserted.id, { escalation }, {}, now);
    const row = { ...inserted, gate: { ...inserted.gate!, escalation } };
    timersSet.length = 0;
    await rounds().sendRound(row);
    // The first round sets its timeout at the expiry and its escalation after `after_hours`, both naming the round.
    expect(timersSet).toEqual([
      {
        timer: { actionId: row.id, kind: 'timeout', round: now.toISOString() },
        at: new Date(now.getTime() + 86_400_000),
      },
      {
        timer: { actionId: row.id, kind: 'escalation', round: now.toISOString() },
        at: new Date(now.getTime() + 3_600_000),
      },
    ]);
    const stale = '2000-01-01T00:00:00.000Z';
    await gateTimeouts().fire({ actionId: row.id, kind: 'escalation', round: stale });
    expect((await recipientsOf(db.sql, row.id)).map((r) => r.role)).toEqual(['recipient']);
    await gateTimeouts().fire({ actionId: row.id, kind: 'escalation', round: now.toISOString() });
    expect((await recipientsOf(db.sql, row.id)).map((r) => r.address)).toEqual([
      'late@example.com',
      'boss@example.com',
    ]);
    expect(sent.map((x) => [x.message.kind, x.message.recipientName])).toEqual([
      ['request', 'late@example.com'],
      ['escalation', 'boss'],
    ]);
  });

  it('a pause stops the escalation and timeout clocks: resume sets them again later by the time paused, and the escalation timer of before the pause is ignored', async () => {
    sent.length = 0;
    const accountId = await t.newAccount('business');
    const inserted = await claimedApproval(accountId, 'Paused?', [
      { address: 'p@example.com', targets: [{ channel: 'email', email: 'p@example.com' }] },
    ]);
    const escalation: StoredGate['escalation'] = {
      contacts: ['lead@example.com'],
      after_hours: 1,
      recipients: [
        {
          reference: 'lead@example.com',
          address: 'lead@example.com',
          displayName: 'lead',
          targets: [{ channel: 'email', email: 'lead@example.com' }],
        },
      ],
    };
    await updateGate(db.sql, inserted.id, { escalation }, {}, now);
    await rounds().sendRound({ ...inserted, gate: { ...inserted.gate!, escalation } });
    let clock = new Date(now.getTime() + 10 * 60_000);
    const pauses = new PauseService({
      store: db,
      scheduler: { schedule: async () => undefined, announce: async () => undefined },
      callbacks: { enqueue: async () => undefined, redeliver: async () => undefined },
      timers: { resumeAt: async () => undefined },
      gateTimers: timers,
      clock: () => clock,
      waits: createWaits(),
    });
    await pauses.pause(accountId, inserted.id, { indefinite: true });
    clock = new Date(now.getTime() + 40 * 60_000);
    timersSet.length = 0;
    const resumed = await pauses.resume(accountId, inserted.id, {});
    expect(resumed.status).toBe('awaiting_response');
    const round = now.toISOString();
    // Paused for 30 minutes: both clocks run 30 minutes later; the escalation's timer names this resume.
    expect(resumed.gate).toMatchObject({
      expires_at: new Date(now.getTime() + 86_400_000 + 30 * 60_000).toISOString(),
      paused_ms: 30 * 60_000,
      resumes: 1,
    });
    expect(timersSet).toEqual([
      {
        timer: { actionId: inserted.id, kind: 'timeout', round },
        at: new Date(now.getTime() + 86_400_000 + 30 * 60_000),
      },
      {
        timer: { actionId: inserted.id, kind: 'escalation', round, resumes: 1 },
        at: new Date(now.getTime() + 3_600_000 + 30 * 60_000),
      },
    ]);
    // The escalation timer set by the round (before the pause) fires at its old time: ignored.
    await gateTimeouts().fire({ actionId: inserted.id, kind: 'escalation', round });
    expect((await recipientsOf(db.sql, inserted.id)).map((r) => r.role)).toEqual(['recipient']);
    await gateTimeouts().fire({ actionId: inserted.id, kind: 'escalation', round, resumes: 1 });
    expect((await recipientsOf(db.sql, inserted.id)).map((r) => r.address)).toEqual([
      'p@example.com',
      'lead@example.com',
    ]);
  });

  it('a timeout that fires early is set again at the expiry; once due, on_timeout applies', async () => {
    const accountId = await t.newAccount('business');
    const row = await claimedApproval(accountId, 'Soon?', [
      { address: 'y@example.com', targets: [{ channel: 'email', email: 'y@example.com' }] },
    ]);
    await rounds().sendRound(row);
    const expiresAt = new Date(now.getTime() + 86_400_000);
    timersSet.length = 0;
    await gateTimeouts().fire({ actionId: row.id, kind: 'timeout', round: now.toISOString() });
    expect(timersSet).toEqual([
      { timer: { actionId: row.id, kind: 'timeout', round: now.toISOString() }, at: expiresAt },
    ]);
    expect((await findGateAction(db.sql, row.id))!.status).toBe('awaiting_response');

    await updateGate(db.sql, row.id, { expires_at: new Date(now.getTime() - 1000).toISOString() }, {}, now);
    await gateTimeouts().fire({ actionId: row.id, kind: 'timeout', round: now.toISOString() });
    expect(await findGateAction(db.sql, row.id)).toMatchObject({
      status: 'cancelled',
      last_error: 'no answer within 1d',
    });
  });

  it('reopening a declined gate revokes its links and asks every recipient again', async () => {
    const accountId = await t.newAccount('business');
    const row = await claimedApproval(accountId, 'Again?', [
      { address: 'x@example.com', targets: [{ channel: 'email', email: 'x@example.com' }] },
    ]);
    const [recipient] = await recipientsOf(db.sql, row.id);
    const old = (await mintResponseTokens(db.sql, [recipient!.id], now)).get(recipient!.id)!;
    await recordAnswer(db.sql, recipient!.id, { status: 'declined', at: now, comment: 'no' });
    await insertRecipients(
      db.sql,
      row.id,
      'escalation',
      [{ reference: 'e', address: 'e@example.com', displayName: 'e', targets: [] }],
      now,
      1,
    );
    await db.transaction((tx) =>
      reopenGate(tx, { ...row, gate: { ...row.gate!, sent_at: now.toISOString() } }, now),
    );
    expect(await findResponseToken(db.sql, old)).toBeUndefined();
    const after = await recipientsOf(db.sql, row.id);
    expect(after).toEqual([
      expect.objectContaining({
        role: 'recipient',
        status: 'pending',
        responded_at: null,
        response_comment: null,
      }),
    ]);
    const reread = await findGateAction(db.sql, row.id);
    expect(reread!.gate).toMatchObject({
      sent_at: null,
      expires_at: null,
      snooze_count: 0,
      escalated_at: null,
    });
  });
});

function sampleMessage(actionId: string): ApprovalMessage {
  return {
    actionId,
    title: 'Kept',
    body: 'Kept',
    recipientName: 'P',
    responseUrl: 'http://sched.test/r/x',
    buttons: { confirm: 'Yes', decline: 'No' },
    snoozeAllowed: false,
    expiresAt: new Date(),
    kind: 'request',
    attachments: [],
  };
}
