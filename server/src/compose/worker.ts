import { ClockSkewWatch } from '../app/clock.js';
import { DueIndex } from '../app/due-index.js';
import { StandingGrants } from '../app/grants/apply.js';
import { ApprovalRounds } from '../app/approvals/rounds.js';
import { chainStepSettled } from '../app/chains/settled.js';
import { Deliveries } from '../app/deliveries/deliver.js';
import { createChannels } from '../channels/registry.js';
import type { ChannelTarget } from '../channels/types.js';
import { canSend, notConfiguredReason } from '../domain/approval/channel-availability.js';
import { notificationOutcome } from '../metrics.js';
import { listenForRuleChanges } from '../jobs/alerts.js';
import { Dispatcher } from '../jobs/dispatcher.js';
import { PeriodicLoop } from '../jobs/periodic.js';
import { createOutboundClient } from '../outbound/http-client.js';
import { createSqlOutbox } from '../persistence/approvals/outbox-messages.js';
import { openNotifications } from '../persistence/notifications.js';
import { databaseClock } from '../persistence/workers.js';
import type { Stoppable, WorkerRuntime } from '../features/feature.js';
import { FEATURES } from '../features/index.js';
import type { ServiceContext } from './context.js';
import type { Shutdown } from './shutdown.js';

/**
 * The worker role: the outgoing HTTP client and the notification channels, the delivery engine (deliveries, approval
 * rounds, the dispatcher and its timers), then each feature's workers (features/: the chain worker, one pg-boss
 * worker per queue). Answers the dispatcher, whose gauges the metrics read.
 */
export async function startWorker(ctx: ServiceContext, shutdown: Shutdown): Promise<Dispatcher> {
  const { config, db, clock, timers, waits, metrics, logger, scheduler } = ctx;
  const { main: database, availability } = db;
  const firing = db.firing!;
  const outbound = createOutboundClient({ allowPrivate: config.allowPrivateDestinations });
  shutdown.add('the outbound HTTP client', () => outbound.close());
  // Production keeps no outbox: a channel without its settings refuses, and says which settings it lacks.
  const unsendable = (channel: ChannelTarget['channel']) =>
    canSend(ctx.channelSending.states, channel)
      ? null
      : notConfiguredReason(channel, ctx.channelSending.settings[channel]);
  const channels = createChannels(config.channels, {
    outbox: createSqlOutbox(database, clock),
    logger,
    notConfigured: unsendable,
    // Provider calls (Twilio, Slack, Teams) go through the SSRF-guarded client like every outgoing request.
    http: async (req) => {
      const r = await outbound.send({ ...req, maxResponseBytes: 65_536 });
      return r.kind === 'response' ? { status: r.status, body: r.bodyExcerpt } : { error: r.message };
    },
  });
  // Every message of an approval or an alert, counted by channel and outcome (sched_notifications_total).
  const countedSend = async <M extends Parameters<(typeof channels)['email']['send']>[1]>(
    target: ChannelTarget,
    message: M,
  ) => {
    const receipt = await channels[target.channel].send(target, message);
    metrics.notifications.inc({ channel: target.channel, outcome: notificationOutcome(receipt) });
    return receipt;
  };
  const approvals = new ApprovalRounds({
    store: database,
    timers: ctx.gateTimers,
    channels: {
      send: countedSend,
      unsendable,
    },
    log: logger,
    clock,
    waits,
    publicUrl: ctx.publicUrl,
    events: ctx.operatorEvents,
    replyDomain: config.inbound.domain,
    callbacks: ctx.callbacks,
    scheduler,
    grants: new StandingGrants({ callbacks: ctx.callbacks, scheduler, clock, waits }),
  });
  const deliveries = new Deliveries({
    timers,
    store: firing,
    claims: db.claims,
    scheduler,
    callbacks: ctx.callbacks,
    outbound,
    clock,
    waits,
    events: {
      fired: (mode, seconds) => metrics.fireLateness.observe({ mode }, seconds),
      attempted: (outcome) => metrics.deliveries.inc({ outcome }),
      retried: () => metrics.retries.inc(),
    },
    approvals,
    tracing: ctx.tracing,
    settled: chainStepSettled,
    breaker: ctx.breaker,
    countDestination: ctx.countDestination,
    operatorEvents: ctx.operatorEvents,
    lateness: ctx.alertWatch,
    signing: ctx.accounts.signing,
  });
  // One LISTEN connection for the process, fanned out by channel, holding the worker's member lock; it reconnects
  // with back-off by itself.
  const notifications = await openNotifications(db.opened.url, {
    member: true,
    lost: (err) => {
      if (!availability.absorbs(err)) logger.warn({ err }, 'LISTEN connection lost; reconnecting');
    },
    retryFailed: (err, nextDelayMs) => {
      if (!availability.absorbs(err)) logger.warn({ err, nextDelayMs }, 'LISTEN reconnection failed');
    },
  });
  shutdown.add('the LISTEN connection', () => notifications.close());
  ctx.listen.adopt(notifications);
  // A rule change is announced at commit: this process's cache of what accounts watch forgets it at once.
  await listenForRuleChanges(notifications, ctx.alertWatch);

  // The triggers, stopped together: those a feature marks `stopFirst` (the chain worker) first, then the dispatcher
  // and the queues' workers, each finishing what it holds up to the shutdown deadline (nothing, after a failed start).
  const workers: Stoppable[] = [];
  const dispatcher = new Dispatcher({
    timers,
    // Its scan promotes attempts entering the window (a state shown, nothing sent on it) and reads the due index.
    store: db.claims ?? firing,
    notifications,
    scheduler,
    deliveries,
    logger,
    clock,
    limits: config.deliveryConcurrency,
    availability,
  });
  let started = false;
  shutdown.add('the triggers (dispatcher, chain worker, queue workers)', async (graceful) => {
    const deadline = graceful ? config.shutdownTimeoutMs : 0;
    for (const w of workers) if (w.stopFirst) await w.stop(deadline);
    await Promise.all([
      started ? dispatcher.stop(deadline) : undefined,
      ...workers.filter((w) => !w.stopFirst).map((w) => w.stop(deadline)),
    ]);
  });

  // A failed job is retried by pg-boss; a database fault is logged once by the availability tracker.
  const failedJob = (what: string) => (err: unknown) => {
    if (!availability.absorbs(err)) logger.error({ err }, `${what} failed; the job will be retried`);
  };
  await dispatcher.start();
  started = true;
  // Each feature's own workers (features/): callbacks and resumes, gate timers, the chain worker, destination
  // wakes, domain checks, bulk operations, alerts, the audit sealer, retention.
  const runtime: WorkerRuntime = {
    ctx,
    shutdown,
    outbound,
    send: countedSend,
    failedJob,
    engine: { dispatcher, rounds: approvals, notifications },
  };
  for (const feature of FEATURES) if (feature.workers) workers.push(...(await feature.workers(runtime)));

  // Expired rate-limit windows are pruned by whichever worker gets there; the delete is idempotent.
  const maintenance = setInterval(() => {
    void ctx.rateLimiter.prune().catch((err: unknown) => {
      if (!availability.absorbs(err)) logger.warn({ err }, 'rate-limit prune failed');
    });
  }, 60_000);
  maintenance.unref();
  shutdown.add('the maintenance timer', () => clearInterval(maintenance));
  // The due index's day, looked after by whichever worker takes the job's lock (a build reads the whole table, so
  // never two at once); a failed build is tried again a minute later.
  const dueIndex = new DueIndex(database, clock);
  const dueIndexLoop = new PeriodicLoop({
    run: async () => {
      const done = await dueIndex.maintain({ wait: false });
      if (done?.built || done?.dropped.length) logger.info(done, 'due index: next day built');
    },
    what: 'due index maintenance',
    intervalMs: 60_000,
    logger,
    timers,
    availability,
  });
  dueIndexLoop.start();
  // Not waited for: a build under way is cancelled with the pool (the next start rebuilds what it left invalid).
  shutdown.add('the due index maintenance', () => {
    void dueIndexLoop.stop();
  });
  // This worker's clock against the database's, at start and each minute (sched_clock_skew_seconds).
  const skew = new ClockSkewWatch({
    readDatabaseClock: () => databaseClock(database.sql),
    clock,
    gauge: metrics.clockSkew,
    log: logger,
  });
  const skewLoop = new PeriodicLoop({
    run: () => skew.check(),
    what: 'the clock skew check',
    intervalMs: 60_000,
    logger,
    timers,
    availability,
  });
  skewLoop.start();
  shutdown.add('the clock skew check', () => skewLoop.stop());
  return dispatcher;
}
