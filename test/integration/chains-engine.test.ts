import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/src/app/accounts.js';
import { ChainEngine } from '../../server/src/app/chains/advance.js';
import { approvalGates } from '../../server/src/app/approvals/gate.js';
import { ChainService } from '../../server/src/app/chains/service.js';
import type { ActionScheduler, ChainCallbacks } from '../../server/src/app/ports.js';
import { lockAction, updateAction } from '../../server/src/persistence/actions.js';
import { CHAIN_DUE_CHANNEL, chainsToAdvance, stepsOf } from '../../server/src/persistence/chains.js';
import { openNotifications } from '../../server/src/persistence/notifications.js';
import { CHAIN_RETRY_BACKOFF_MS, ChainWorker } from '../../server/src/jobs/chain-worker.js';
import { openTestDatabase } from '../support/in-process.js';
import { manualClock } from '../support/manual-clock.js';
import { eventually } from '../support/wait.js';

// The chain engine in-process on a real PostgreSQL with a fake clock and recording ports: advancing is idempotent,
// a settled step never starts its successor twice, and a delay is a due time on the step (never scaled).
describe('chain engine (in-process, fake clock)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let principal: Principal;
  let now = new Date('2026-03-02T10:00:00.000Z');
  const scheduled: string[] = [];
  const events: { chain: string; event: string; step?: number }[] = [];
  let engine: ChainEngine;
  let service: ChainService;

  beforeAll(async () => {
    t = await openTestDatabase('chain_engine');
    principal = {
      accountId: await t.newAccount('business'),
      plan: 'business',
      rateLimitFactor: 1,
      keyId: 'test',
      scopes: [],
    };
    const scheduler: ActionScheduler = {
      async schedule(_tx, id) {
        scheduled.push(id);
      },
      async announce(_tx, attempts) {
        for (const a of attempts) scheduled.push(a.actionId);
      },
    };
    const callbacks: ChainCallbacks = {
      async enqueue(_db, chain, event, payload) {
        const step = (payload.step as { index?: number } | undefined)?.index;
        events.push({ chain: chain.id, event, ...(step === undefined ? {} : { step }) });
      },
    };
    const clock = () => now;
    engine = new ChainEngine({
      store: t.database,
      scheduler,
      clock,
      callbacks,
      allowPrivateDestinations: true,
      gates: approvalGates,
    });
    service = new ChainService(t.database, engine, callbacks, clock, {
      allowPrivateDestinations: true,
      transitions: {
        scheduler,
        callbacks: { enqueue: async () => undefined, redeliver: async () => undefined },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const due = async () => (await chainsToAdvance(t.database.sql, now, 100)).chainIds;
  const settle = (actionId: string, status: 'executed' | 'failed') =>
    t.database.transaction(async (db) => {
      const row = (await lockAction(db, actionId))!;
      await updateAction(db, row.id, { status: 'executing', updated_at: now });
      await updateAction(db, row.id, {
        status,
        updated_at: now,
        last_error: status === 'failed' ? 'HTTP 500' : null,
      });
    });

  it('advances once per settled step however often it is called, and waits a delay on the clock', async () => {
    const chain = await service.create(principal, {
      name: 'idempotent',
      input: {},
      error_handling: 'fail_chain',
      steps: [
        { name: 'first', type: 'http_call', url: 'http://127.0.0.1:9/a', method: 'POST', headers: {} },
        { name: 'pause', type: 'delay', delay: '1h' },
        { name: 'last', type: 'http_call', url: 'http://127.0.0.1:9/b', method: 'POST', headers: {} },
      ],
    });
    const first = chain.steps[0]!.action_id!;
    expect(scheduled).toEqual([first]);
    // The step's action is an ordinary action (the create core, app/actions/create.ts) naming its chain and step,
    // counted against the month's quota like any create.
    const stepAction = (await lockAction(t.database.sql, first))!;
    expect(stepAction).toMatchObject({
      chain_id: chain.id,
      chain_step_index: 0,
      mode: 'webhook',
      status: 'scheduled',
      description: `Step 0 of chain ${chain.id}`,
      name: 'idempotent / first',
    });
    expect(stepAction.scheduled_for).toEqual(now);
    // Nothing has settled: advancing is a no-op, and the step is not due.
    await Promise.all([engine.advance(chain.id), engine.advance(chain.id)]);
    expect(await due()).toEqual([]);
    expect((await stepsOf(t.database.sql, chain.id)).map((s) => s.status)).toEqual([
      'running',
      'pending',
      'pending',
    ]);

    // The action's final state marks the step due in its own transaction (the trigger on actions), and
    // notifies listening workers with the chain's id at commit.
    const heard: string[] = [];
    const listener = await openNotifications(t.url);
    await listener.subscribe(CHAIN_DUE_CHANNEL, { payload: (id) => heard.push(id) });
    await settle(first, 'executed');
    expect(await due()).toEqual([chain.id]);
    await eventually(async () => heard.length > 0);
    expect(heard).toEqual([chain.id]);
    await listener.close();
    await Promise.all([engine.advance(chain.id), engine.advance(chain.id), engine.advance(chain.id)]);
    await engine.advance(chain.id);
    let steps = await stepsOf(t.database.sql, chain.id);
    expect(steps.map((s) => s.status)).toEqual(['completed', 'running', 'pending']);
    expect(steps[1]!.due_at).toEqual(new Date(now.getTime() + 3600_000));
    // The scan answers the earliest due time still ahead: the delay's end, which a worker sets its timer for.
    expect((await chainsToAdvance(t.database.sql, now, 100)).nextDue).toEqual(steps[1]!.due_at);
    expect(events.filter((e) => e.chain === chain.id)).toEqual([
      { chain: chain.id, event: 'chain.step.completed', step: 0 },
    ]);
    expect(await due()).toEqual([]);

    now = new Date(now.getTime() + 3600_000 - 1);
    expect(await due()).toEqual([]);
    await engine.advance(chain.id);
    expect((await stepsOf(t.database.sql, chain.id))[1]!.status).toBe('running');

    now = new Date(now.getTime() + 1);
    expect(await due()).toEqual([chain.id]);
    await Promise.all([engine.advance(chain.id), engine.advance(chain.id)]);
    steps = await stepsOf(t.database.sql, chain.id);
    expect(steps.map((s) => s.status)).toEqual(['completed', 'completed', 'running']);
    // One action per HTTP step, however many advances ran.
    expect(scheduled).toEqual([first, steps[2]!.action_id]);

    await settle(steps[2]!.action_id!, 'failed');
    await engine.advance(chain.id);
    await engine.advance(chain.id);
    const failed = await service.get(principal.accountId, chain.id);
    expect(failed.status).toBe('failed');
    expect(failed.steps[2]).toMatchObject({ status: 'failed', outcome: 'failed', error: 'HTTP 500' });
    expect(events.filter((e) => e.chain === chain.id).map((e) => e.event)).toEqual([
      'chain.step.completed',
      'chain.step.completed',
      'chain.step.completed',
      'chain.failed',
    ]);
  });

  it('a chain whose steps all skip completes inside the create', async () => {
    const chain = await service.create(principal, {
      name: 'all skipped',
      input: { go: 'no' },
      error_handling: 'fail_chain',
      steps: [
        { name: 'a', type: 'delay', delay: '1m', condition: '{{input.go}} == yes' },
        { name: 'b', type: 'delay', delay: '1m', condition: "{{steps.0.status}} != 'skipped'" },
      ],
    });
    expect(chain.status).toBe('completed');
    expect(chain.steps.map((s) => [s.status, s.outcome])).toEqual([
      ['skipped', 'skipped'],
      ['skipped', 'skipped'],
    ]);
    expect(chain.context.steps['0']).toEqual({ status: 'skipped', response: null });
  });

  it("chains whose advance keeps failing are put off, so a full batch of them never holds up other chains' delays", async () => {
    const steps = [
      { name: 'wait', type: 'delay' as const, delay: '1h' },
      { name: 'end', type: 'delay' as const, delay: '1h' },
    ];
    const create = (name: string, first = '1h') =>
      service.create(principal, {
        name,
        input: {},
        error_handling: 'fail_chain',
        steps: [{ ...steps[0]!, delay: first }, steps[1]!],
      });
    // A full scan batch (100) of chains that fail to advance, due since 1970: they sort before anything else due.
    const failing = new Set<string>();
    for (let i = 0; i < 100; i++) failing.add((await create(`failing ${i}`)).id);
    await t.database.sql
      .updateTable('chain_steps')
      .set({ due_at: new Date(0) })
      .where('chain_id', 'in', [...failing])
      .where('status', '=', 'running')
      .execute();
    const other = await create('other tenant', '1s');
    now = new Date(now.getTime() + 2000);
    class FailingEngine extends ChainEngine {
      override advance(chainId: string): Promise<void> {
        return failing.has(chainId) ? Promise.reject(new Error('advance failed')) : super.advance(chainId);
      }
    }
    const notifications = await openNotifications(t.url);
    const worker = new ChainWorker({
      store: t.database,
      engine: new FailingEngine({
        store: t.database,
        scheduler: { schedule: async () => undefined, announce: async () => undefined },
        clock: () => now,
        callbacks: { enqueue: async () => undefined },
        allowPrivateDestinations: true,
        gates: approvalGates,
      }),
      clock: () => now,
      // The back-off's error lines are expected here: a logger that keeps nothing.
      logger: { error() {}, warn() {} } as unknown as ConstructorParameters<typeof ChainWorker>[0]['logger'],
      notifications,
      intervalMs: 20,
    });
    await worker.start();
    try {
      await eventually(async () => (await stepsOf(t.database.sql, other.id))[0]!.status === 'completed');
    } finally {
      await worker.stop();
      await notifications.close();
    }
    // Each failing chain was put off by the back-off, not dropped: due again 30 s on.
    const { due_at } = await t.database.sql
      .selectFrom('chain_steps')
      .select('due_at')
      .where('chain_id', '=', [...failing][0]!)
      .where('status', '=', 'running')
      .executeTakeFirstOrThrow();
    expect(due_at).toEqual(new Date(now.getTime() + CHAIN_RETRY_BACKOFF_MS));
  });
  it('a delay that starts is announced with its due time, and a worker wakes for it without waiting for its scan', async () => {
    const manual = manualClock(new Date('2026-04-01T08:00:00.000Z'));
    const noCallbacks: ChainCallbacks = { enqueue: async () => undefined };
    const timedEngine = new ChainEngine({
      store: t.database,
      scheduler: { schedule: async () => undefined, announce: async () => undefined },
      clock: manual.clock,
      callbacks: noCallbacks,
      allowPrivateDestinations: true,
      gates: approvalGates,
    });
    const timedService = new ChainService(t.database, timedEngine, noCallbacks, manual.clock, {
      allowPrivateDestinations: true,
      transitions: {
        scheduler: { schedule: async () => undefined, announce: async () => undefined },
        callbacks: { enqueue: async () => undefined, redeliver: async () => undefined },
      },
    });
    const heard: string[] = [];
    const notifications = await openNotifications(t.url);
    await notifications.subscribe(CHAIN_DUE_CHANNEL, { payload: (p) => heard.push(p) });
    // The safety-net scan an hour apart: only the announcements and the scan's own next due time can wake it in time.
    const worker = new ChainWorker({
      store: t.database,
      engine: timedEngine,
      clock: manual.clock,
      timers: manual.timers,
      logger: { error() {}, warn() {} } as unknown as ConstructorParameters<typeof ChainWorker>[0]['logger'],
      notifications,
      intervalMs: 3_600_000,
    });
    await worker.start();
    try {
      await manual.advance(0);
      const chain = await timedService.create(principal, {
        name: 'announced delays',
        input: {},
        error_handling: 'fail_chain',
        steps: [
          { name: 'first', type: 'delay', delay: '10s' },
          { name: 'second', type: 'delay', delay: '20s' },
        ],
      });
      const firstDue = manual.clock().getTime() + 10_000;
      // The worker between scans has exactly one timer armed (the soonest it knows of): wait for that before moving
      // the clock, so a scan still running does not arm its timer after the clock has passed it.
      const armed = () => eventually(async () => manual.pending() === 1);
      await eventually(async () => heard.includes(`${chain.id},${firstDue}`));
      await armed();
      const statuses = async () => (await stepsOf(t.database.sql, chain.id)).map((s) => s.status);
      await manual.advance(9_999);
      expect(await statuses()).toEqual(['running', 'pending']);
      await manual.advance(1);
      await eventually(async () => (await statuses())[0] === 'completed');
      // The second delay was started by the worker's own advance and announced at its commit too.
      await eventually(async () => heard.includes(`${chain.id},${firstDue + 20_000}`));
      await armed();
      await manual.advance(20_000);
      await eventually(async () => (await statuses()).join() === 'completed,completed');
    } finally {
      await worker.stop();
      await notifications.close();
    }
  });
});
