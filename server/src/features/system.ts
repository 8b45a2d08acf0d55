import { apiContract, HOLD_REASONS } from '@sched/contract';
import type { ServiceContext } from '../compose/context.js';
import { safeEqual } from '../http/auth.js';
import type { Metrics } from '../metrics.js';
import { databaseFault } from '../persistence/availability.js';
import { pendingMigrations, type Sql } from '../persistence/database.js';
import { circuitStateCounts, heldCounts, topHeldHosts } from '../persistence/destination-gauges.js';
import { dueBacklog } from '../persistence/schedule.js';
import { SERVER_VERSION } from '../version.js';
import type { ApiRuntime, Feature } from './feature.js';

/** The probes (`/healthz`, `/readyz`) and Prometheus' `/metrics`, under the probes' per-IP limit. */
export const systemFeature: Feature = {
  name: 'system',
  async routes(app, http, runtime) {
    const { ctx } = runtime;
    const token = ctx.config.metricsToken;
    const render = metricsRenderer(runtime);
    app.get(
      '/metrics',
      { onRequest: async (request, reply) => http.probeLimit(request, reply) },
      async (request, reply) => {
        if (token && !safeEqual(request.headers.authorization ?? '', `Bearer ${token}`)) {
          return reply.status(401).send({
            code: 'unauthorized',
            message: 'metrics need Authorization: Bearer <SCHED_METRICS_TOKEN>',
          });
        }
        const out = await render();
        return reply.header('content-type', out.contentType).send(out.body);
      },
    );
    const readiness = readinessCheck(ctx);
    await http.contract(apiContract.system, {
      healthz: async () => ({ status: 200, body: { status: 'ok', version: SERVER_VERSION } }),
      readyz: async () => {
        const r = await readiness();
        // The channels' states describe a server that can serve: an unavailable one answers its checks only.
        return r.ok
          ? {
              status: 200,
              body: {
                status: 'ok',
                version: SERVER_VERSION,
                checks: r.checks,
                channels: r.channels,
                ...(r.readReplica ? { read_replica: r.readReplica } : {}),
              },
            }
          : { status: 503, body: { status: 'unavailable', version: SERVER_VERSION, checks: r.checks } };
      },
    });
  },
};

/** Readiness: database reachable and migrations current; each notification channel's state (informative). */
function readinessCheck(ctx: ServiceContext) {
  const { db, logger } = ctx;
  const { main: database, availability } = db;
  return async () => {
    const checks: Record<string, string> = {};
    try {
      // During an outage the tracker's own probe decides; no request piles onto a dead server meanwhile.
      if (!availability.available) throw new Error(availability.unavailableReason);
      await database.ping();
      checks.database = 'ok';
      const pending = await pendingMigrations(db.orm);
      checks.migrations = pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    } catch (err) {
      // The reason goes to the log only (once per outage): /readyz is public and the text names hosts,
      // ports and users.
      if (availability.available && !availability.absorbs(err))
        logger.warn({ err }, 'readiness check failed');
      const busy = databaseFault(err) === 'timeout' ? 'no connection in time' : 'unreachable';
      checks.database = `unavailable: ${availability.unavailableReason ?? busy}`;
    }
    return {
      ok: Object.values(checks).every((v) => v === 'ok'),
      checks,
      channels: ctx.channelSending.states,
      readReplica: ctx.reads.status(),
    };
  };
}

/** Prometheus text for GET /metrics: the gauges read at scrape time, then the registry. */
function metricsRenderer({ ctx, firing }: ApiRuntime) {
  const { config, metrics, clock } = ctx;
  const database = ctx.db.main;
  return async () => {
    const backlog = await dueBacklog(database.sql, clock());
    metrics.queueDepth.set(backlog.depth);
    metrics.oldestDue.set(backlog.oldestSeconds);
    const gauges = firing();
    metrics.deliveriesInFlight.set(gauges?.inFlight ?? 0);
    metrics.deliveriesWaiting.set(gauges?.waiting ?? 0);
    await destinationGauges(database.sql, metrics, config.metricsHostLabels);
    return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
  };
}

/** Hosts the per-host gauges name at most (SCHED_METRICS_HOST_LABELS). */
const METRICS_TOP_HOSTS = 20;
const NOT_CLOSED = ['open', 'half_open', 'disabled'] as const;

/** The destination gauges, read at scrape time: totals always, per host only when asked for (bounded). */
async function destinationGauges(db: Sql, metrics: Metrics, hostLabels: boolean): Promise<void> {
  const [held, circuits] = await Promise.all([heldCounts(db), circuitStateCounts(db)]);
  for (const reason of HOLD_REASONS)
    metrics.heldDeliveries.set({ reason }, held.find((h) => h.reason === reason)?.n ?? 0);
  for (const state of NOT_CLOSED)
    metrics.circuits.set({ state }, circuits.find((c) => c.state === state)?.n ?? 0);
  if (!hostLabels) return;
  const top = await topHeldHosts(db, METRICS_TOP_HOSTS);
  // Hosts that left the top list must not linger with their last value.
  metrics.hostHeldDeliveries.reset();
  metrics.hostCircuits.reset();
  for (const h of top) {
    metrics.hostHeldDeliveries.set({ host: h.host }, h.held);
    for (const state of new Set(h.states))
      metrics.hostCircuits.set({ host: h.host, state }, h.states.filter((s) => s === state).length);
  }
}
