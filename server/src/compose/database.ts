import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { systemClock } from '../app/clock.js';
import { DueIndex } from '../app/due-index.js';
import { AttemptPartitions } from '../app/partitions.js';
import type { Config, Role } from '../config.js';
import { usePlanLimits } from '../domain/quota/plans.js';
import { DatabaseAvailability } from '../persistence/availability.js';
import { Database, migrateUp, openOrm, probeServer, withApplicationName } from '../persistence/database.js';
import { ensureEmbeddedPostgres } from '../persistence/embedded-postgres.js';
import type { Shutdown } from './shutdown.js';

/*
 * The database handles of a process, named by purpose, and its connection budget, written once:
 *   main      the API's and the use cases' pool (openOrm's default, 20), opened with the migrations;
 *   counters  8, rate-limit windows and after-commit usage counts, committed without waiting for the disk flush;
 *   firing    10, workers only: records of delivery attempts, never queued behind API transactions;
 *   claims    2, workers only: a worker's claims of due attempts, committed without waiting for the disk flush;
 *   pg-boss   10 in a worker, 4 in an API process (jobs/queue.ts), plus its own LISTEN in a worker;
 *   LISTEN    1 in a worker (persistence/notifications.ts), for the dispatcher and the chain worker;
 *   migrate   2 while starting (released before serving).
 * So an `all` process holds at most 20 + 8 + 10 + 2 + 10 + 1 + 1 = 52 connections, an API one 32, a worker one 52.
 * With SCHED_READ_DATABASE_URL, an API or `all` process also holds up to 10 on the replica (`replica`).
 */

export interface OpenDatabase {
  url: string;
  orm: MikroORM;
  database: Database;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or to the embedded PostgreSQL in SCHED_DATA_DIR, and applies pending migrations. */
export async function openDatabase(
  config: Config,
  opts: {
    appName: string;
    poolSize?: number;
    log?: (m: string) => void;
    /** The embedded PostgreSQL's supervisor lines (its postmaster died, restarted); default `log`. */
    alert?: (m: string) => void;
    /** Connect and statement timeouts of the pool (config.databaseTimeouts); the migration runs without them. */
    timeouts?: Config['databaseTimeouts'];
  },
): Promise<OpenDatabase> {
  // The deployment's plan table (SCHED_PLANS_FILE) for what runs without `startService` too: `sched purge` keeps each
  // plan's retention, and drops a month of attempts only past the longest one the deployment has.
  usePlanLimits(config.plans);
  const embedded = config.databaseUrl
    ? null
    : await ensureEmbeddedPostgres({
        dataDir: config.dataDir,
        ...(opts.log ? { log: opts.log } : {}),
        ...(opts.alert ? { alert: opts.alert } : {}),
      });
  const url = withApplicationName(config.databaseUrl ?? embedded!.url, opts.appName);
  try {
    await migrateWithLock(url, opts.log);
    const orm = await openOrm({
      databaseUrl: url,
      applicationName: opts.appName,
      ...(opts.poolSize ? { poolSize: opts.poolSize } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
    });
    const database = new Database(orm);
    return {
      url,
      orm,
      database,
      async close() {
        await orm.close(true);
        await embedded?.release();
      },
    };
  } catch (err) {
    await embedded?.release();
    throw err;
  }
}

/**
 * Several processes may start at once: one applies migrations while the others wait. On a pool of its own, without
 * the statement timeout of request connections: a migration, or the wait for another process's, may take long.
 */
async function migrateWithLock(url: string, log?: (m: string) => void): Promise<void> {
  const database = new Database(await openOrm({ databaseUrl: url, poolSize: 2 }));
  try {
    await database.withSessionLock(7420000, () => migrateUp(database.orm));
    // An attempt always finds its month's partition: this month and the next two exist from the start on.
    await new AttemptPartitions(database, systemClock).maintain({ drop: false });
    // The due index serving today's claims exists before any claim (a first start after an upgrade builds it). A
    // build that fails (a database user that does not own the table) leaves the index there was, and the start goes on.
    await new DueIndex(database, systemClock).maintain({ wait: true }).catch((err: unknown) => {
      log?.(`the due index was not rebuilt (${(err as Error).message}); claims use the one there is`);
    });
  } finally {
    await database.close();
  }
}

/** The handles of a process by purpose (above), after the migrations, and its outage tracker. */
export interface DatabaseHandles {
  opened: OpenDatabase;
  orm: MikroORM;
  main: Database;
  counters: Database;
  /** Workers only. */
  firing: Database | undefined;
  /** Workers only: claims commit without waiting for the disk flush (see `openDatabases`). */
  claims: Database | undefined;
  /** Workers only: the audit sealer's connection. */
  audit: Database | undefined;
  /** API processes with SCHED_READ_DATABASE_URL: the read replica's pool (app/reads.ts routes reads to it). */
  replica: Database | undefined;
  availability: DatabaseAvailability;
}

export async function openDatabases(
  config: Config,
  role: Role,
  logger: Logger,
  shutdown: Shutdown,
): Promise<DatabaseHandles> {
  const timeouts = config.databaseTimeouts;
  const opened = await openDatabase(config, {
    appName: `sched-${role}`,
    log: (m) => logger.debug(m),
    alert: (m) => logger.warn(m),
    timeouts,
  });
  shutdown.add('the database (and its embedded server)', () => opened.close());
  // One view of the database per process: an outage is logged once, requests answer 503, /readyz says why.
  const availability = new DatabaseAvailability({
    probe: () => probeServer(opened.url, timeouts.connectMs),
    log: logger,
  });
  shutdown.add('the availability watch', () => availability.close(), { first: true });
  // Each pool under its own application_name (`sched-<role>-<pool>`; the main pool's is `sched-<role>`), so the
  // backends serving claims, records, counters and seals can be told apart in pg_stat_activity and measured apart.
  const named = (pool: string) => ({ databaseUrl: opened.url, applicationName: `sched-${role}-${pool}` });
  // Rate-limit windows and the usage of plans without a quota are hot rows every request updates; their own small
  // pool commits them without waiting for the disk flush (synchronous_commit=off), so the row lock is held for
  // microseconds. A crash may forget a second of counts, never data that matters.
  const counters = new Database(
    await openOrm({
      ...named('counters'),
      poolSize: 8,
      sessionOptions: '-c synchronous_commit=off',
      timeouts,
    }),
  );
  shutdown.add('the counters pool', () => counters.close().catch(() => undefined));
  // Firing has its own connections: a claim never queues behind API transactions in the same process.
  const firing =
    role === 'api' ? undefined : new Database(await openOrm({ ...named('firing'), poolSize: 10, timeouts }));
  if (firing) shutdown.add('the firing pool', () => firing.close().catch(() => undefined));
  // A claim need not wait for the disk: should PostgreSQL crash before flushing it, the attempt is due again and
  // claimed again, exactly as after its lease expires. What must be durable is an attempt's outcome once it was sent,
  // and its record (on `firing`, synchronous) flushes the WAL up to itself, the claim included. Measured: the claims
  // of a burst, one at a time per worker, spent most of their round trip waiting for the WAL flush.
  const claims =
    role === 'api'
      ? undefined
      : new Database(
          await openOrm({
            ...named('claims'),
            poolSize: 2,
            sessionOptions: '-c synchronous_commit=off',
            timeouts,
          }),
        );
  if (claims) shutdown.add('the claims pool', () => claims.close().catch(() => undefined));
  // The audit sealer's one connection: a pass holds it for a moment a second, and its cost shows apart from creates.
  const audit =
    role === 'api' ? undefined : new Database(await openOrm({ ...named('audit'), poolSize: 1, timeouts }));
  if (audit) shutdown.add('the audit pool', () => audit.close().catch(() => undefined));
  const replica = await openReplica(config, role, logger);
  if (replica) shutdown.add('the read replica pool', () => replica.close().catch(() => undefined));
  return {
    opened,
    orm: opened.orm,
    main: opened.database,
    counters,
    firing,
    claims,
    audit,
    replica,
    availability,
  };
}

/**
 * The replica's pool, never migrated (a standby replays the primary's migrations). Opened even when the replica is
 * down: the lag watch (app/reads.ts) finds it down and reads go to the primary until it answers.
 */
async function openReplica(config: Config, role: Role, logger: Logger): Promise<Database | undefined> {
  if (!config.readReplica || role === 'worker') return undefined;
  const orm = await openOrm({
    databaseUrl: config.readReplica.url,
    applicationName: `sched-${role}-replica`,
    poolSize: 10,
    log: (m) => logger.debug(m),
    timeouts: config.databaseTimeouts,
  });
  return new Database(orm);
}
