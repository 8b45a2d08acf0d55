// @ts-check
// The one seeding helper of the benchmarks. Rows go straight into a table by set-based INSERT ... SELECT over
// generate_series (hundreds of thousands a second), with the column list built from the entity definitions of the
// build under test (its MikroORM metadata, read through the server package's `openDatabase`): a column the caller
// names that the entity no longer has, or a required column (not null, no default) the caller does not fill, fails the
// seed at once. So a migration that breaks a benchmark's rows fails `node bench/run.mjs --smoke` the same day instead
// of seeding something the server no longer reads.
import { log, nowMs, serverPackage, sleep } from './lib.mjs';

/** @typedef {{ column: string, required: boolean }} Column */
/** @typedef {{ table: string, columns: Map<string, Column> }} EntityTable */

/** @type {Map<string, Promise<Map<string, EntityTable>>>} */
const byBuild = new Map();

/**
 * Every entity's table and columns, by entity name ('Action', 'DeliveryAttempt', ...), from the metadata of the
 * build at `root` (opened once per build on `databaseUrl`, an already migrated database).
 * @param {string} root
 * @param {string} databaseUrl
 */
function entityTables(root, databaseUrl) {
  let tables = byBuild.get(root);
  if (!tables) {
    tables = (async () => {
      const { openDatabase, loadConfig } = await serverPackage(root);
      const opened = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }), { appName: 'bench-seed' });
      try {
        /** @type {Map<string, EntityTable>} */
        const out = new Map();
        for (const meta of opened.orm.getMetadata().getAll().values()) {
          if (!meta.tableName) continue;
          /** @type {Map<string, Column>} */
          const columns = new Map();
          for (const prop of meta.props) {
            // Scalars and the foreign key of a many-to-one; collections and formulas have no column of their own.
            if (!['scalar', 'm:1'].includes(prop.kind) || prop.persist === false || !prop.fieldNames)
              continue;
            const required =
              !prop.nullable &&
              prop.default === undefined &&
              prop.defaultRaw === undefined &&
              !prop.autoincrement;
            for (const column of prop.fieldNames) columns.set(column, { column, required });
          }
          out.set(meta.className, { table: meta.tableName, columns });
        }
        return out;
      } finally {
        await opened.close();
      }
    })();
    byBuild.set(root, tables);
  }
  return tables;
}

/**
 * Inserts `count` rows of `entity` into the stack's database: `values` maps each column to an SQL expression of `g`
 * (the row's number, from 1) and of `$3`, `$4`... (`params`); `from` adds lateral clauses after the series.
 * Split over `connections` connections. Resolves to the milliseconds it took.
 * @param {{ db: { query: (text: string, values?: unknown[]) => Promise<any> }, databaseUrl: string, root: string }} stack
 * @param {{ entity: string, count: number, values: Record<string, string>, params?: unknown[], from?: string,
 *   connections?: number, first?: number }} spec
 */
export async function seedRows(
  stack,
  { entity, count, values, params = [], from = '', connections = 2, first = 1 },
) {
  const tables = await entityTables(stack.root, stack.databaseUrl);
  const target = tables.get(entity);
  if (!target) throw new Error(`seed: no entity ${entity} in this build`);
  // A column of a newer build is left out when the build under test predates it (a run paired with an older build).
  values = Object.fromEntries(
    Object.entries(values).filter(([c]) => target.columns.has(c) || !NEWER_COLUMNS.has(c)),
  );
  const unknown = Object.keys(values).filter((c) => !target.columns.has(c));
  if (unknown.length) throw new Error(`seed: ${target.table} has no column ${unknown.join(', ')}`);
  const missing = [...target.columns.values()].filter((c) => c.required && !(c.column in values));
  if (missing.length)
    throw new Error(
      `seed: ${target.table} needs ${missing.map((c) => c.column).join(', ')}, which the seed leaves out`,
    );
  const columns = Object.keys(values);
  let text = `insert into ${target.table} (${columns.join(', ')})
    select ${columns.map((c) => values[c]).join(', ')}
      from generate_series($1::bigint, $2::bigint) g ${from}`;
  // Actions register their origins in the create's insert (server/src/persistence/action-origins.ts): seeded ones
  // too, on a build that keeps them, in the same statement and the same order.
  const origins = tables.get('ActionOrigin');
  if (entity === 'Action' && origins && 'destination_origin' in values)
    text = `with seeded as (${text} returning account_id, destination_origin)
      insert into ${origins.table} (account_id, origin)
      select distinct account_id, destination_origin from seeded where destination_origin is not null
       order by 1, 2
      on conflict do nothing`;
  const t0 = nowMs();
  const size = Math.ceil(count / connections);
  const chunks = [];
  for (let lo = first; lo < first + count; lo += size)
    chunks.push(stack.db.query(text, [lo, Math.min(first + count - 1, lo + size - 1), ...params]));
  await Promise.all(chunks);
  return nowMs() - t0;
}

/** Columns the seeds fill that builds the benchmark pairs with may not have yet. */
const NEWER_COLUMNS = new Set(['destination_origin']);

/** A UUIDv7 whose time is `at` (an SQL timestamptz) and whose rest comes from row `g` and `salt`: ids in time order. */
const uuidAt = (at, salt) =>
  `(lpad(to_hex((extract(epoch from ${at}) * 1000)::bigint), 12, '0') || '7' ||
    substr(md5(g::text || '${salt}'), 1, 3) || '8' || substr(md5(g::text || '${salt}'), 4, 15))::uuid`;

/**
 * `count` pending webhook actions of the stack's account, due uniformly over `spreadDays` from now (so a share falls
 * due while the benchmark runs, delivered to `url`, each body carrying its due time), created over the 30 days before:
 * the backlog months of creates through the API leave. Their ids are UUIDv7 of their creation time, as the API's.
 * @param {{ db: { query: (text: string, values?: unknown[]) => Promise<any> }, databaseUrl: string, root: string, accountId: string }} stack
 * @param {{ count: number, url: string, spreadDays?: number, firstDueInMs?: number }} spec
 */
export function seedPending(stack, { count, url, spreadDays = 30, firstDueInMs = 60_000 }) {
  const host = new URL(url).hostname;
  return seedRows(stack, {
    entity: 'Action',
    count,
    params: [stack.accountId, url, host, count, spreadDays, firstDueInMs, new URL(url).origin],
    from: `, lateral (select now() + $8 * interval '1 millisecond'
                            + ((g * 7919) % $6)::float8 / $6 * $7 * interval '1 day' as due,
                        now() - interval '30 days' + g::float8 / $6 * interval '30 days' as created,
                        $9::text as origin) s`,
    values: {
      id: uuidAt('created', 'p'),
      account_id: '$3',
      name: `'seeded ' || g`,
      mode: `'webhook'`,
      status: `'scheduled'`,
      timezone: `'UTC'`,
      scheduled_for: 'due',
      next_attempt_at: 'due',
      max_attempts: '5',
      retry_strategy: `'exponential'`,
      request: `jsonb_build_object('url', $4::text, 'method', 'POST', 'headers', '{}'::jsonb,
                                   'body', jsonb_build_object('due', (extract(epoch from due) * 1000)::bigint))`,
      destination_host: '$5',
      destination_origin: 'origin',
      created_at: 'created',
      updated_at: 'created',
    },
  });
}

/**
 * `count` terminal actions of the stack's account (nine in ten executed, one failed, over 50 hosts), each with its
 * one delivery attempt, ended uniformly over the `spreadDays` days before `endedDaysAgo` days ago: the history a
 * year of deliveries leaves, for the console's reads and the retention pass.
 * @param {{ db: { query: (text: string, values?: unknown[]) => Promise<any> }, databaseUrl: string, root: string, accountId: string }} stack
 * @param {{ count: number, spreadDays?: number, endedDaysAgo?: number }} spec
 */
export async function seedHistory(stack, { count, spreadDays = 395, endedDaysAgo = 0 }) {
  // $n: the count, $n+1: the spread in days, $n+2: when the last ended (one instant for both statements, which
  // derive the same action ids from it); the attempts' seed has no account parameter.
  const lateral = (n) => `, lateral (select
      $${n + 2}::timestamptz - ((g * 104729) % $${n})::float8 / $${n} * $${n + 1} * interval '1 day' as at,
      case when g % 10 = 0 then 'failed' else 'executed' end as st,
      'host-' || (g % 50) || '.example' as host) s`;
  const params = [count, spreadDays, new Date(Date.now() - endedDaysAgo * 86_400_000).toISOString()];
  const actionsMs = await seedRows(stack, {
    entity: 'Action',
    count,
    params: [stack.accountId, ...params],
    from: lateral(4),
    values: {
      id: uuidAt(`at - interval '1 minute'`, 'h'),
      account_id: '$3',
      name: `'history ' || g`,
      mode: `'webhook'`,
      status: 'st',
      timezone: `'UTC'`,
      scheduled_for: 'at',
      executed_at: 'at',
      attempt_count: '1',
      max_attempts: '1',
      retry_strategy: `'exponential'`,
      request: `jsonb_build_object('url', 'https://' || host || '/hook', 'method', 'POST', 'headers', '{}'::jsonb)`,
      destination_host: 'host',
      destination_origin: `'https://' || host`,
      last_attempt_at: 'at',
      last_status_code: `case when st = 'executed' then 200 else 500 end`,
      last_error_class: `case when st = 'failed' then 'http' end`,
      last_lateness_ms: '3',
      created_at: `at - interval '1 minute'`,
      updated_at: 'at',
    },
  });
  const last = new Date(params[2]);
  await ensureAttemptMonths(stack, new Date(last.getTime() - spreadDays * 86_400_000), last);
  const attemptsMs = await seedRows(stack, {
    entity: 'DeliveryAttempt',
    count,
    params,
    from: lateral(3),
    values: {
      id: uuidAt('at', 'a'),
      action_id: uuidAt(`at - interval '1 minute'`, 'h'),
      attempt_number: '1',
      due_at: 'at',
      started_at: 'at',
      lateness_ms: '3',
      duration_ms: '12',
      status_code: `case when st = 'executed' then 200 else 500 end`,
      outcome: `case when st = 'executed' then 'success' else 'permanent' end`,
      error_class: `case when st = 'failed' then 'http' end`,
    },
  });
  return actionsMs + attemptsMs;
}

/**
 * The months of attempt history a seed writes, from `from` to `to`, when the build under test partitions the attempt
 * log by month of its ids (its server keeps only this month and the next two): each month's partition, made by the
 * build's own statement. A build from before the partitions exports none and needs none.
 * @param {{ db: { query: (text: string, values?: unknown[]) => Promise<any> }, root: string }} stack
 * @param {Date} from
 * @param {Date} to
 */
async function ensureAttemptMonths(stack, from, to) {
  const { attemptPartitionStatement } = await serverPackage(stack.root);
  if (typeof attemptPartitionStatement !== 'function') return;
  const month = (y, m) => new Date(Date.UTC(y, m, 1));
  for (
    let m = month(from.getUTCFullYear(), from.getUTCMonth());
    m <= to;
    m = month(m.getUTCFullYear(), m.getUTCMonth() + 1)
  ) {
    // The server delivers meanwhile: take the two tables' locks as the server's partition job does
    // (persistence/partitions.ts `lockForPartitionChange`, in one implicit transaction), so the seed never deadlocks a
    // delivery; try again while they are busy.
    for (let tries = 1; ; tries++) {
      try {
        await stack.db.query(
          `set local lock_timeout = '2s';
           lock table actions in share row exclusive mode;
           set local lock_timeout = '200ms';
           lock table only delivery_attempts in access exclusive mode;
           ${attemptPartitionStatement(m)}`,
        );
        break;
      } catch (err) {
        if (/** @type {{ code?: string }} */ (err).code !== '55P03' || tries >= 100) throw err;
        await sleep(50);
      }
    }
  }
}

/**
 * The seed's aftermath settled before anything is measured, as a server that wrote those rows over months would have
 * it: the failed inbox's deltas the seed's failed actions appended (one per action) folded by the server (a build
 * without them has nothing to wait for), then VACUUM ANALYZE of the database (fresh statistics, the visibility map
 * set, the folded deltas' dead rows gone). Without the wait, autovacuum cleaned a million deltas inside the create
 * window that followed, and its WAL and CPU were charged to the creates. Timed.
 */
export async function settleSeed(stack) {
  const t0 = nowMs();
  const deadline = t0 + 120_000;
  for (;;) {
    const { rows } = await stack.db.query(
      `select case when to_regclass('failed_inbox_deltas') is null then 0
                   else (select count(*) from (select 1 from failed_inbox_deltas limit 1) d) end::int as n`,
    );
    if (rows[0].n === 0) break;
    if (nowMs() > deadline) {
      log('seed: the failed inbox deltas were not folded within 120 s; measuring with them');
      break;
    }
    await sleep(500);
  }
  const folded = nowMs();
  await stack.db.query('vacuum analyze');
  const ms = nowMs() - t0;
  log(
    `seed: folds waited for ${Math.round((folded - t0) / 1000)} s, vacuum analyze in ${Math.round((nowMs() - folded) / 1000)} s`,
  );
  return ms;
}
