import { Migrator } from '@mikro-orm/migrations';
import { type InferKyselyDB, IsolationLevel, MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { EXACT_TOTAL_LIMIT } from '@sched/contract';
import pg from 'pg';
import { entities, routines } from './entities/index.js';
import { connectionConfig, firstHostUrl, withUrlParam } from './hosts.js';
import { migrationsList } from './migrations/index.js';

/** Every table as Kysely sees it, inferred from the `defineEntity` schemas: one declaration per table. */
export type Tables = InferKyselyDB<(typeof entities)[number]>;

/** Typed SQL; inside `Database.transaction` it runs on that transaction's connection. */
export type Sql = Kysely<Tables>;

/** pg-boss's one-method database port. */
export interface JobSql {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * pg-boss's `executeSql` on `db` (the caller's transaction), so `boss.send(..., { db })` commits with the caller's
 * rows. The one adapter: jobs/queue.ts hands it to pg-boss.
 */
export function jobSqlOn(db: Sql): JobSql {
  return {
    executeSql: async (text, values) => ({
      rows: (await db.executeQuery(CompiledQuery.raw(text, values ?? []))).rows as unknown[],
    }),
  };
}

/**
 * The one handle on PostgreSQL: MikroORM for plain CRUD and its Kysely (`sql`) for hand-shaped statements, both on
 * the transaction `transaction()` opened around the caller (MikroORM keeps it in async-local storage); pg-boss
 * writes on it too (`jobSqlOn`), so a row and the job that acts on it commit together.
 */
export class Database {
  constructor(readonly orm: MikroORM) {}

  /** Typed SQL on the current transaction, or on the pool outside one. */
  get sql(): Sql {
    return this.orm.em.getKysely<Tables>();
  }

  /**
   * Runs `fn` in one transaction (joined when one is already open): everything it writes, through `db`, `this.sql`,
   * the entity manager or a pg-boss send given `jobSqlOn(db)`, commits or rolls back together.
   */
  transaction<T>(fn: (db: Sql) => Promise<T>): Promise<T> {
    return this.orm.em.transactional(() => fn(this.sql));
  }

  /**
   * Runs the reads of `fn` in one snapshot (a read-only repeatable-read transaction): a view read in several
   * statements shows one moment, never a row from before a commit beside its attempts from after it.
   */
  snapshot<T>(fn: (db: Sql) => Promise<T>): Promise<T> {
    return this.orm.em.transactional(() => fn(this.sql), {
      isolationLevel: IsolationLevel.REPEATABLE_READ,
      readOnly: true,
    });
  }

  /** A round trip to the server (the readiness check). */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.sql);
  }

  /** Runs `fn` holding a session-wide advisory lock (on a connection of its own), e.g. one migrating process at a time. */
  withSessionLock<T>(key: number, fn: () => Promise<T>): Promise<T> {
    return this.sql.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(${key})`.execute(connection);
      try {
        return await fn();
      } finally {
        await sql`select pg_advisory_unlock(${key})`.execute(connection).catch(() => undefined);
      }
    });
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }
}

/**
 * Runs `fn` on a pooled connection of its own, outside any transaction and without the statement timeout: what
 * cannot run in a transaction and reads a whole table (CREATE INDEX CONCURRENTLY, VACUUM).
 */
export function onUntimedConnection<T>(db: Sql, fn: (connection: Sql) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      return await fn(connection);
    } finally {
      await sql`reset statement_timeout`.execute(connection).catch(() => undefined);
    }
  });
}

/**
 * Waits, for at most `boundMs`, until every transaction of this database that was running when it was called has
 * ended (what `CREATE INDEX CONCURRENTLY` waits for between its phases; retention's removal of origins, say): whatever they wrote is then committed or gone.
 * One statement; the activity view is read afresh at each look (a transaction otherwise keeps its first reading).
 */
export async function untilRunningTransactionsEnd(db: Sql, boundMs: number): Promise<void> {
  await sql`do $$ declare since timestamptz := clock_timestamp(); begin
    for i in 1..${sql.lit(Math.max(1, Math.ceil(boundMs / 20)))} loop
      perform pg_stat_clear_snapshot();
      exit when not exists (select 1 from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
          and xact_start < since);
      perform pg_sleep(0.02);
    end loop; end $$`.execute(db);
}

/**
 * One round trip on a connection of its own, not a pooled one: whether the server answers, whatever the pools are
 * doing (all busy is not an outage). The availability tracker's probe.
 */
export async function probeServer(databaseUrl: string, timeoutMs: number): Promise<void> {
  const settings = connectionConfig(databaseUrl);
  const client = new settings.Client({
    ...settings,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A statement of fixed text for the hottest paths, run on `db` like any other: Kysely's builder costs about 85 µs of
 * CPU per statement to build and compile (measured: 4,000 upserts, 192 against 107 µs per statement), which is 5-8 % of
 * a create's CPU; a fixed text also keeps its prepared statement's name lookup cheap. Typed by its caller.
 */
export function fixedStatement<R>(text: string) {
  const run = async (db: Sql, params: readonly unknown[]): Promise<R[]> =>
    (await db.executeQuery<R>(CompiledQuery.raw(text, [...params]))).rows;
  // The text too, for a test of the statement's plan.
  return Object.assign(run, { text });
}

/** Tables listed page by page, newest first (each has `created_at` and `id`). */
type Listed = 'actions' | 'chains' | 'templates' | 'bulk_operations' | 'calendars' | 'alert_rules';

/** How many items a list's filter matches: counted, or PostgreSQL's estimate (`exact: false`) past a large number. */
export interface Total {
  total: number;
  exact?: boolean;
}

/** A page of a list's rows and how many the filter matches. */
export type Listing<R> = Required<Total> & { rows: R[] };

/**
 * How many rows `filtered` matches: exact up to EXACT_TOTAL_LIMIT (the contract's); past it, the planner's estimate,
 * never less. An exact count reads every matching index entry (3 s for the ten million actions of one account on the
 * benchmark's machine, and a busy one went past the statement timeout); one that stops at the limit takes a few
 * milliseconds.
 */
export async function countMatching<T extends keyof Tables>(
  db: Sql,
  filtered: SelectQueryBuilder<Tables, T, object>,
): Promise<Required<Total>> {
  const counted = await countUpToLimit(db, filtered);
  if (counted <= EXACT_TOTAL_LIMIT) return { total: counted, exact: true };
  return { total: Math.max(counted, await estimatedRows(db, filtered)), exact: false };
}

/** The rows `filtered` matches, counted up to one past EXACT_TOTAL_LIMIT: more than the limit means "too many to count". */
export async function countUpToLimit<T extends keyof Tables>(
  db: Sql,
  filtered: SelectQueryBuilder<Tables, T, object>,
): Promise<number> {
  const matching = filtered.select(sql`1`.as('one'));
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (${matching.limit(EXACT_TOTAL_LIMIT + 1)}) as capped`.execute(db);
  return rows[0]?.n ?? 0;
}

/**
 * The planner's estimate of how many rows `filtered` matches (`EXPLAIN`: nothing is read but its statistics). It never
 * estimates fewer than one row, also for a filter its statistics saw nothing of: one reads as none.
 */
export async function estimatedRows<T extends keyof Tables>(
  db: Sql,
  filtered: SelectQueryBuilder<Tables, T, object>,
): Promise<number> {
  const plan = filtered.select(sql`1`.as('one')).compile();
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }>(
    CompiledQuery.raw(`explain (format json) ${plan.sql}`, [...plan.parameters]),
  );
  const estimate = Math.round(rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0);
  return estimate > 1 ? estimate : 0;
}

/** One page of a filtered list, newest first (ties by id), and the total the filter matches: every list endpoint. */
export async function newestFirstPage<T extends Listed>(
  db: Sql,
  filtered: SelectQueryBuilder<Tables, T, object>,
  page: { limit: number; offset: number },
  /** Where the total is known without counting (the failed inbox's kept total): it answers instead of a count. */
  keptTotal?: () => Promise<number>,
): Promise<Listing<Selectable<Tables[T]>>> {
  const [total, rows] = await Promise.all([
    keptTotal ? keptTotal().then((n) => ({ total: n, exact: true })) : countMatching(db, filtered),
    filtered
      .selectAll()
      .orderBy(sql`created_at`, 'desc')
      .orderBy(sql`id`, 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { ...total, rows: rows as Selectable<Tables[T]>[] };
}

export async function openOrm(opts: {
  databaseUrl: string;
  poolSize?: number;
  /** Settings every connection of this pool starts with, e.g. `-c synchronous_commit=off`. */
  sessionOptions?: string;
  /**
   * The pool's name in pg_stat_activity (`application_name`; MikroORM does not pass the URL's on), so the backends
   * serving claims, records, creates and seals can be told apart and measured apart.
   */
  applicationName?: string;
  /**
   * How long a connection is waited for, pool queue and connect together (then the caller gets a 'timeout' fault,
   * persistence/availability.ts), and the statement_timeout of every session (0 or unset: none). Both keep a request
   * from hanging while the database is away or stuck.
   */
  timeouts?: { connectMs: number; statementMs: number };
  debug?: boolean;
  log?: (m: string) => void;
}): Promise<MikroORM> {
  return MikroORM.init({
    // A multi-host URL: MikroORM parses the first host; every connection goes through the host selection.
    clientUrl: firstHostUrl(opts.databaseUrl),
    entities,
    routines,
    extensions: [Migrator],
    // Connections idle for up to five minutes stay open: opening one costs a SCRAM exchange on both sides and a
    // fresh set of prepared statements, which showed as tail lateness when a burst followed a quiet minute.
    pool: { min: 0, max: opts.poolSize ?? 20, idleTimeoutMillis: 300_000 },
    driverOptions: {
      Client: connectionConfig(opts.databaseUrl, NamedStatementClient).Client,
      types: { getTypeParser: typeParser },
      // A server that vanished without closing the socket (a host down, a failover) is noticed by TCP keepalive.
      keepAlive: true,
      ...(opts.timeouts ? { connectionTimeoutMillis: opts.timeouts.connectMs } : {}),
      ...(opts.timeouts?.statementMs ? { statement_timeout: opts.timeouts.statementMs } : {}),
      ...(opts.sessionOptions ? { options: opts.sessionOptions } : {}),
      ...(opts.applicationName ? { application_name: opts.applicationName } : {}),
    },
    debug: opts.debug ?? false,
    logger: (message: string) => opts.log?.(message),
    allowGlobalContext: false,
    migrations: {
      tableName: 'sched_migrations',
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
  });
}

/**
 * pg's own parsers, so a `timestamptz` arrives as a `Date` as the entity types say (MikroORM's pool keeps
 * timestamps as text by default, which left `asDate` workarounds all over the callers).
 */
const typeParser = ((oid: number, format?: 'text' | 'binary') =>
  pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser;

/**
 * Every statement with parameters is sent as a named prepared statement, so PostgreSQL parses and plans a hot
 * query once per connection instead of on every call (measured on 78f92f5: +28 % creates per second). Names are
 * stable per text within a generation; the generation moves on when a migration run by another process changed
 * a table a prepared statement returns (PostgreSQL then refuses it once with "cached plan must not change result
 * type"). Statements without parameters (DDL, BEGIN, COMMIT, multi-statement migrations) go as they are.
 */
const MAX_PREPARED = 1_000;
const statementNames = new Map<string, string>();
let generation = 0;
const RESULT_TYPE_CHANGED = '0A000';

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    // The texts that read the due index change once a day (they state its horizon), so a long-lived process meets new
    // texts for ever: past the cap the names start again under a new generation instead of going unprepared.
    if (statementNames.size >= MAX_PREPARED) {
      statementNames.clear();
      generation += 1;
    }
    name = `sched_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return `${name}_${generation}`;
}

class NamedStatementClient extends pg.Client {}
const plainQuery = pg.Client.prototype.query;
NamedStatementClient.prototype.query = function namedQuery(
  this: pg.Client,
  config: unknown,
  values?: unknown,
  callback?: unknown,
) {
  if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0 || callback !== undefined)
    return (plainQuery as (...args: unknown[]) => unknown).call(this, config, values, callback);
  const send = (): Promise<pg.QueryResult> => {
    const name = statementName(config);
    const query = plainQuery as (q: pg.QueryConfig) => Promise<pg.QueryResult>;
    return query.call(this, { text: config, values, name });
  };
  return send().catch((err: unknown) => {
    if ((err as { code?: string }).code !== RESULT_TYPE_CHANGED) throw err;
    generation += 1;
    // An autocommit statement is simply sent again under its new name; in a transaction the error has aborted it.
    if (this.getTransactionStatus() !== 'I') throw err;
    return send();
  });
} as typeof plainQuery;

/** Adds `application_name` so the embedded launcher can tell our connections apart. */
export function withApplicationName(url: string, name: string): string {
  return withUrlParam(url, 'application_name', name);
}

/** Applies the pending migrations (persistence/migrations/); answers their names. */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  return (await orm.migrator.getPending()).map((m) => m.name);
}

/**
 * Runs `fn` inside the caller's transaction under a savepoint: when it throws, what it did is rolled back and the
 * rest of the transaction stands (a bulk operation's page goes on past one refused action); the error is rethrown.
 */
export async function withSavepoint<T>(db: Sql, fn: () => Promise<T>): Promise<T> {
  await sql`savepoint item`.execute(db);
  try {
    const result = await fn();
    await sql`release savepoint item`.execute(db);
    return result;
  } catch (err) {
    await sql`rollback to savepoint item`.execute(db);
    throw err;
  }
}
