/**
 * Whether PostgreSQL is there: one place classifies driver errors (node-postgres, pg-pool, MikroORM's wrappers,
 * pg-boss) and one tracker per process turns an outage into one warning when it starts and one info line when it
 * ends, instead of a stack per pool client per retry. Requests answer 503 meanwhile (http/errors.ts).
 */

/** What an error says about the database, when it says anything. */
export type DatabaseFault =
  /** The server is gone, restarting, refusing, or dropped our connection: an outage. */
  | 'unavailable'
  /** No connection could be had in time: a dead host, or every pooled connection busy. */
  | 'timeout'
  /** A statement ran past statement_timeout (or was cancelled): the server is there but slow. */
  | 'statement_timeout';

/** Node's socket errors that mean the server cannot be reached. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of an outage: 57P01 admin_shutdown (also pg_terminate_backend), 57P02 crash_shutdown, 57P03
 * cannot_connect_now (starting up, recovering), 53300 too_many_connections, 25006 read_only_sql_transaction (a
 * primary demoted under us), and class 08 (connection exceptions).
 */
const OUTAGE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);

/** node-postgres and pg-pool report a lost or never-made connection with these messages and no code. */
const LOST_CONNECTION = [
  /^Connection terminated/,
  /connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Client has already been connected/,
  /Connection ended unexpectedly/,
  /the database system is (starting up|shutting down|in recovery mode)/,
  /terminating connection due to/,
  /^read ECONNRESET/,
];
const NO_CONNECTION_IN_TIME = [
  /^timeout exceeded when trying to connect/,
  /^Connection terminated due to connection timeout/,
];

export function databaseFault(err: unknown): DatabaseFault | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message, errors, cause } = e as {
      code?: unknown;
      message?: unknown;
      errors?: unknown;
      cause?: unknown;
    };
    const text = typeof message === 'string' ? message : '';
    if (NO_CONNECTION_IN_TIME.some((re) => re.test(text))) return 'timeout';
    if (typeof code === 'string') {
      if (code === '57014') return 'statement_timeout';
      if (SOCKET_CODES.has(code) || OUTAGE_STATES.has(code) || code.startsWith('08')) return 'unavailable';
    }
    if (LOST_CONNECTION.some((re) => re.test(text))) return 'unavailable';
    // Node reports a refused connection to every address of a name (::1 and 127.0.0.1) as an AggregateError.
    if (Array.isArray(errors) && errors.some((x) => databaseFault(x) === 'unavailable')) return 'unavailable';
    e = cause;
  }
  return undefined;
}

export interface AvailabilityLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * The process's view of the database. Callers hand it every error they catch (`absorbs`): an outage error is
 * recorded (and logged once) and the caller stays quiet; anything else is the caller's to log. While the database
 * is away a probe runs every `probeIntervalMs` and the first success ends the outage.
 */
export class DatabaseAvailability {
  private downSince: number | undefined;
  private reason = '';
  private probing: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private closed = false;
  private readonly listeners = new Set<(up: boolean) => void>();

  constructor(
    private readonly o: {
      probe: () => Promise<void>;
      log: AvailabilityLog;
      probeIntervalMs?: number;
      now?: () => number;
    },
  ) {}

  get available(): boolean {
    return this.downSince === undefined;
  }

  /** Why the database is unavailable, for /readyz (no host names: the text is public). */
  get unavailableReason(): string | undefined {
    return this.downSince === undefined ? undefined : this.reason;
  }

  /** Called with true when an outage ends, false when one starts. */
  onChange(listener: (up: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * True when `err` is a database fault (the caller should not log it): an outage starts the tracked outage, a
   * connection timeout triggers a probe, which decides.
   */
  absorbs(err: unknown): boolean {
    const fault = databaseFault(err);
    if (fault === 'unavailable') this.wentAway(err);
    else if (fault === 'timeout' && this.available) void this.check();
    return fault !== undefined;
  }

  /** Records `err` as `absorbs` does and says how a request meeting it answers (both 503s, different texts). */
  answerFor(err: unknown): 'unavailable' | 'slow' | undefined {
    if (!this.absorbs(err)) return undefined;
    return databaseFault(err) === 'unavailable' || !this.available ? 'unavailable' : 'slow';
  }

  /** Probes once (unless an outage is already being probed) and records what it finds. */
  check(): Promise<void> {
    this.checking ??= this.o
      .probe()
      .then(
        () => this.cameBack(),
        (err: unknown) => {
          if (databaseFault(err)) this.wentAway(err);
        },
      )
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }

  close(): void {
    this.closed = true;
    if (this.probing) clearTimeout(this.probing);
  }

  private now() {
    return this.o.now?.() ?? Date.now();
  }

  private wentAway(err: unknown): void {
    if (this.closed || this.downSince !== undefined) return;
    this.downSince = this.now();
    this.reason = databaseFault(err) === 'timeout' ? 'no connection in time' : 'unreachable';
    const e = err as { code?: unknown; message?: unknown };
    this.o.log.warn(
      { code: e.code, error: String(e.message ?? err) },
      'database unavailable: answering 503 and retrying until it is back',
    );
    for (const l of this.listeners) l(false);
    this.scheduleProbe();
  }

  private cameBack(): void {
    if (this.downSince === undefined) return;
    const outageMs = this.now() - this.downSince;
    this.downSince = undefined;
    if (this.probing) clearTimeout(this.probing);
    this.probing = undefined;
    this.o.log.info({ outageMs }, `database available again after ${(outageMs / 1000).toFixed(1)} s`);
    for (const l of this.listeners) l(true);
  }

  private scheduleProbe(): void {
    if (this.closed || this.downSince === undefined) return;
    this.probing = setTimeout(() => {
      void this.check().finally(() => this.scheduleProbe());
    }, this.o.probeIntervalMs ?? 250);
    this.probing.unref();
  }
}
