import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Process-local Prometheus metrics; gauges about the backlog are read from the database at scrape time. */
export interface Metrics {
  registry: Registry;
  fireLateness: Histogram<'mode'>;
  deliveries: Counter<'outcome'>;
  retries: Counter;
  callbacks: Counter<'outcome'>;
  queueDepth: Gauge;
  oldestDue: Gauge;
  deliveriesInFlight: Gauge;
  deliveriesWaiting: Gauge;
  purgedRows: Counter<'table'>;
  /** Approval and alert messages by channel and outcome (sent, outbox, not_configured, failed). */
  notifications: Counter<'channel' | 'outcome'>;
  /** Due deliveries held by their destination, by reason; and destinations by circuit state (not closed). */
  heldDeliveries: Gauge<'reason'>;
  circuits: Gauge<'state'>;
  /** Per host, only with SCHED_METRICS_HOST_LABELS (the top hosts: bounded cardinality). */
  hostHeldDeliveries: Gauge<'host'>;
  hostCircuits: Gauge<'host' | 'state'>;
  /** HTTP answers by route template (`/v1/actions/:id`, never the raw path) and status class (`2xx`...). */
  httpRequests: Histogram<'method' | 'route' | 'status_class'>;
  /** The read replica (SCHED_READ_DATABASE_URL): its replay lag, whether it answers, where reads went, fallbacks. */
  replicaLag: Gauge;
  replicaUp: Gauge;
  /** A worker's clock minus the database's, as last read (each minute). */
  clockSkew: Gauge;
  reads: Counter<'on'>;
  replicaFallbacks: Counter<'reason'>;
}

/** The route label of a request: its template, or `unmatched` (so scanners cannot blow up the label set). */
export function routeLabel(template: string | undefined): string {
  return template && template !== '*' ? template : 'unmatched';
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'sched' });
  // Process metrics (CPU, memory, event-loop lag, GC, handles), prefixed as prom-client names them. The lag is
  // sampled every 100 ms, not prom-client's 10: a timer firing a hundred times a second cost an idle server 0.6 % of
  // a core, a third of all it spends; ten samples a second still fill the percentiles between two scrapes.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const clockSkew = new Gauge({
    name: 'sched_clock_skew_seconds',
    help: "This worker's clock minus the database's, as last read (each minute; NaN before the first reading, and in an api process); past 0.25 s either way it warns.",
    registers: [registry],
  });
  // Unknown until a worker reads it: a 0 would claim a reading that was never taken.
  clockSkew.set(Number.NaN);
  return {
    registry,
    httpRequests: new Histogram({
      name: 'sched_http_request_duration_seconds',
      help: 'HTTP requests served, by method, route template and status class; _count is the request count.',
      labelNames: ['method', 'route', 'status_class'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    fireLateness: new Histogram({
      name: 'sched_fire_lateness_seconds',
      help: 'Start of a delivery attempt minus the time it was due.',
      labelNames: ['mode'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'sched_deliveries_total',
      help: 'Delivery attempts by outcome (success, retryable, permanent).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    notifications: new Counter({
      name: 'sched_notifications_total',
      help:
        'Approval and alert messages by channel and outcome: sent (a provider took it), outbox (kept on a development ' +
        "server), not_configured (production without the channel's settings), failed.",
      labelNames: ['channel', 'outcome'],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'sched_retries_total',
      help: 'Retries scheduled after a retryable failure.',
      registers: [registry],
    }),
    callbacks: new Counter({
      name: 'sched_callbacks_total',
      help: 'Callback delivery attempts by outcome (delivered, retry, rejected, abandoned).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'sched_queue_depth',
      help: 'Actions due now or earlier and not yet started.',
      registers: [registry],
    }),
    oldestDue: new Gauge({
      name: 'sched_oldest_due_seconds',
      help: 'Age of the oldest due action not yet started (0 when none).',
      registers: [registry],
    }),
    deliveriesInFlight: new Gauge({
      name: 'sched_deliveries_in_flight',
      help: 'Delivery attempts firing in this worker process (capped by SCHED_DELIVERY_CONCURRENCY).',
      registers: [registry],
    }),
    deliveriesWaiting: new Gauge({
      name: 'sched_deliveries_waiting',
      help: 'Due delivery attempts the last claim left unclaimed for want of room (the per-account or the process cap).',
      registers: [registry],
    }),
    heldDeliveries: new Gauge({
      name: 'sched_deliveries_held',
      help: 'Due deliveries held by their destination, by reason (paused, circuit, flow_control).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    circuits: new Gauge({
      name: 'sched_destination_circuits',
      help: 'Destinations (account and host) whose circuit is open, half_open or disabled, by state.',
      labelNames: ['state'],
      registers: [registry],
    }),
    hostHeldDeliveries: new Gauge({
      name: 'sched_destination_held_deliveries',
      help: 'Due deliveries held per host, for the top hosts only (SCHED_METRICS_HOST_LABELS).',
      labelNames: ['host'],
      registers: [registry],
    }),
    hostCircuits: new Gauge({
      name: 'sched_destination_circuit',
      help: 'Accounts whose circuit to the host is in this state (not closed), for the top hosts only (SCHED_METRICS_HOST_LABELS).',
      labelNames: ['host', 'state'],
      registers: [registry],
    }),
    replicaLag: new Gauge({
      name: 'sched_read_replica_lag_seconds',
      help: "How far the read replica's replay is behind the primary, as last measured (each second).",
      registers: [registry],
    }),
    replicaUp: new Gauge({
      name: 'sched_read_replica_up',
      help: 'Whether the read replica answered its last lag measure (1) or not (0).',
      registers: [registry],
    }),
    clockSkew,
    reads: new Counter({
      name: 'sched_reads_total',
      help: 'Reads that may lag (lists, the inbox, stats, console reads, the audit export), by where they ran: replica or primary.',
      labelNames: ['on'],
      registers: [registry],
    }),
    replicaFallbacks: new Counter({
      name: 'sched_read_replica_fallbacks_total',
      help: 'Reads sent to the primary because the replica was down, lagging past its bound, or failed the read.',
      labelNames: ['reason'],
      registers: [registry],
    }),
    purgedRows: new Counter({
      name: 'sched_retention_purged_rows_total',
      help: 'Rows deleted by history retention, by table (actions, delivery_attempts, reminder_events, outbox_messages).',
      labelNames: ['table'],
      registers: [registry],
    }),
  };
}

/** The outcome label of one message's receipt. */
export function notificationOutcome(receipt: { ok: boolean; via: string }): string {
  if (receipt.ok) return receipt.via === 'outbox' ? 'outbox' : 'sent';
  return receipt.via === 'not_configured' ? 'not_configured' : 'failed';
}
