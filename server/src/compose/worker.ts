import { StandingGrants } from '../app/grants/apply.js';
import { pauseAction, resumeAction } from '../app/actions/pause.js';
import { rescheduleAction, runActionNow } from '../app/actions/reschedule.js';
import { AlertEvaluation } from '../app/alerts/evaluate.js';
import { AlertSender } from '../app/alerts/send.js';
import { GateTimeouts } from '../app/approvals/timers.js';
import { BulkRunner } from '../app/bulk/runner.js';
import { ApprovalRounds } from '../app/approvals/rounds.js';
import { chainStepSettled } from '../app/chains/settled.js';
import { CallbackDeliveries } from '../app/deliveries/callbacks.js';
import { Deliveries } from '../app/deliveries/deliver.js';
import { AuditSealer } from '../app/audit.js';
import { RetentionService } from '../app/retention.js';
import { createChannels } from '../channels/registry.js';
import type { ChannelTarget } from '../channels/types.js';
import { canSend, notConfiguredReason } from '../domain/approval/channel-availability.js';
import { notificationOutcome } from '../metrics.js';
import { listenForRuleChanges, workAlerts } from '../jobs/alerts.js';
import { createBulkOperationQueue, workBulkOperations } from '../jobs/bulk-operations.js';
import { workCallbacks } from '../jobs/callbacks.js';
import { AuditSealerLoop } from '../jobs/audit-sealer.js';
import { ChainWorker } from '../jobs/chain-worker.js';
import { Dispatcher } from '../jobs/dispatcher.js';
import { workDestinationWakes } from '../jobs/destination-wakes.js';
import { workDomainChecks } from '../jobs/domains.js';
import { workGateTimers } from '../jobs/gate-timers.js';
import { workResumes } from '../jobs/pause-timers.js';
import type { JobWorker } from '../jobs/queue.js';
import { workRetention } from '../jobs/retention.js';
import { createOutboundClient } from '../outbound/http-client.js';
import { createSqlOutbox } from '../persistence/approvals/outbox-messages.js';
import { openNotifications } from '../persistence/notifications.js';
import type { ServiceContext } from './context.js';
import type { Shutdown } from './shutdown.js';

/**
 * The worker role: the outgoing HTTP client and the notification channels, the use cases that fire work, and the
 * triggers over them (the dispatcher and its timers, the chain worker, one pg-boss worker per queue). Answers the
 * dispatcher, whose gauges the metrics read.
 */
export async function startWorker(ctx: ServiceContext, shutdown: Shutdown): Promise<Dispatcher> {
  const { config, db, clock, timers, waits, metrics, logger, queue, scheduler } = ctx;
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
    notConfigured: (channel) => unsendable(channel),
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
  const callbacks = new CallbackDeliveries({
    store: firing,
    outbox: ctx.callbacks,
    countDestination: ctx.countDestination,
    outbound,
    waits,
    clock,
    signing: ctx.accounts.signing,
    events: {
      attempted: (outcome, failure) => {
        metrics.callbacks.inc({ outcome });
        if (failure) logger.info({ ...failure, status: outcome }, 'callback not delivered');
      },
    },
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

  // The triggers, stopped together: the chain worker first, then the dispatcher and the queues' workers, each
  // finishing what it holds up to the shutdown deadline (nothing, after a failed start).
  const workers: JobWorker[] = [];
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
  const chainWorker = new ChainWorker({
    timers,
    store: firing,
    engine: ctx.chainEngine(firing),
    clock,
    logger,
    notifications,
    availability,
  });
  const auditSealer = new AuditSealerLoop({
    sealer: new AuditSealer(db.audit ?? database),
    logger,
    timers,
    availability,
  });
  let started = { dispatcher: false, chainWorker: false };
  shutdown.add('the triggers (dispatcher, chain worker, queue workers)', async (graceful) => {
    const deadline = graceful ? config.shutdownTimeoutMs : 0;
    await auditSealer.stop();
    if (started.chainWorker) await chainWorker.stop();
    await Promise.all([
      started.dispatcher ? dispatcher.stop(deadline) : undefined,
      ...workers.map((w) => w.stop(deadline)),
    ]);
  });

  // A failed job is retried by pg-boss; a database fault is logged once by the availability tracker.
  const failedJob = (what: string) => (err: unknown) => {
    if (!availability.absorbs(err)) logger.error({ err }, `${what} failed; the job will be retried`);
  };
  const timeouts = new GateTimeouts({
    store: database,
    timers: ctx.gateTimers,
    scheduler,
    callbacks: ctx.callbacks,
    clock,
    waits,
    rounds: approvals,
    events: ctx.operatorEvents,
  });
  workers.push(await workGateTimers(queue, timeouts, failedJob('gate timer')));
  await dispatcher.start();
  started = { ...started, dispatcher: true };
  workers.push(await workCallbacks(queue, callbacks, failedJob('callback delivery')));
  workers.push(
    await workResumes(queue, (job) => ctx.pauses.resumeWhenDue(job), failedJob('resume of a pause')),
  );
  workers.push(
    await workDestinationWakes(
      queue,
      (job) => ctx.breaker.wake(job),
      (ids, accountId) => dispatcher.fireHeld(ids, accountId),
      failedJob('destination wake'),
    ),
  );
  await chainWorker.start();
  started = { ...started, chainWorker: true };
  auditSealer.start();
  workers.push(await workDomainChecks(queue, ctx.domains, failedJob('domain check')));
  workers.push(await workRetention(queue, new RetentionService(database, clock), metrics, logger));
  const bulkQueue = createBulkOperationQueue(queue);
  const { actionChanges, replays, pauseDeps } = ctx;
  const moveDeps = {
    scheduler: ctx.scheduler,
    callbacks: ctx.callbacks,
    clock,
    allowPrivateDestinations: config.allowPrivateDestinations,
  };
  const bulkRunner = new BulkRunner({
    store: database,
    clock,
    waits,
    ops: {
      cancel: (db, rows, now) => actionChanges.cancelRows(db, rows, now),
      retry: async (db, row, now) => void (await actionChanges.retryRow(db, row, now)),
      replay: async (db, owner, row, overrides) => (await replays.replayRow(db, owner, row, overrides)).id,
      pause: async (db, row, input, via) =>
        void (await pauseAction(pauseDeps, db, row.account_id, row.id, input, { via })),
      resume: async (db, row, input, via) =>
        void (await resumeAction(pauseDeps, db, row.account_id, row.id, input, { via })),
      reschedule: async (db, owner, row, offsetMs, via) => {
        const due = row.next_attempt_at ?? row.scheduled_for;
        const body = { scheduled_for: new Date(due.getTime() + offsetMs).toISOString() };
        await rescheduleAction(moveDeps, db, owner, row.id, body, { via });
      },
      run: async (db, row, input, via) =>
        void (await runActionNow(moveDeps, db, row.account_id, row.id, input, { via })),
    },
    handOn: (id) => bulkQueue.enqueue(database.sql, id),
    events: ctx.operatorEvents,
  });
  const bulk = await workBulkOperations(queue, bulkRunner, logger, waits.wait(2_000, 500));
  // A run in progress ends after its page as soon as shutting down begins, so another worker carries on at once.
  shutdown.add('the bulk-operation runs', () => bulk.stopRuns(), { first: true });
  workers.push(bulk.worker);

  // Alerts: rules evaluated against recorded events, and their messages sent through the same adapters and outbox
  // as approval messages (or as signed webhooks through the SSRF-guarded client).
  const alerts = {
    evaluation: new AlertEvaluation({ store: database, clock, waits, jobs: ctx.alertJobs }),
    sender: new AlertSender({
      store: database,
      clock,
      waits,
      jobs: ctx.alertJobs,
      channels: { send: countedSend },
      outbound,
      log: logger,
      countDestination: ctx.countDestination,
    }),
  };
  workers.push(await workAlerts(queue, alerts, failedJob('alert job')));

  // Expired rate-limit windows are pruned by whichever worker gets there; the delete is idempotent.
  const maintenance = setInterval(() => {
    void ctx.rateLimiter.prune().catch((err: unknown) => {
      if (!availability.absorbs(err)) logger.warn({ err }, 'rate-limit prune failed');
    });
  }, 60_000);
  maintenance.unref();
  shutdown.add('the maintenance timer', () => clearInterval(maintenance));
  return dispatcher;
}
