// Experiment "hot-claim": what a claim that is a HOT update would write, on a migrated sched database. Not a goal,
// a measurement for a design choice (docs/performance.md, "Deliveries, still 0.87x the bare worker"): today's claim
// sets status, lease, attempt count and updated_at, so every index gets an entry; the alternative sets only a lease
// and the count, with no index on the lease and a fillfactor that leaves room on the page.
// `node bench/hot-claim.mjs [--rows N]`: each variant claims N copies of one real action, 16 per statement.
import { BUILDS, createAction, pg, sleep, startPostgres, startStack } from './lib.mjs';

const rowsArg = process.argv.indexOf('--rows');
const N = rowsArg > 0 ? Number(process.argv[rowsArg + 1]) : 20_000;

const postgres = await startPostgres();
const stack = await startStack('hot-claim', BUILDS[0], postgres);
const made = await createAction(stack, {
  name: 'template',
  schedule: { wait: '7d' },
  request: { url: 'http://127.0.0.1:9/hook', method: 'POST', body: { n: 1 } },
});
const templateId = JSON.parse(made.body).data.id;
// The service stops (its worker would deliver the copies), the database stays until the end.
for (const pid of stack.pids) process.kill(pid, 'SIGTERM');
await sleep(5_000);
const db = new pg.Client({ connectionString: stack.databaseUrl });
await db.connect();

async function seed() {
  await db.query('delete from actions where id <> $1', [templateId]);
  // Every column but the generated ones (`phase`, `failed_at`), which PostgreSQL computes.
  const { rows } = await db.query(
    `select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as list
       from information_schema.columns where table_name = 'actions' and is_generated = 'NEVER'`,
  );
  const list = rows[0].list;
  await db.query(
    `insert into actions (${list}) select ${list} from (
       select (jsonb_populate_record(a, jsonb_build_object('id', gen_random_uuid(),
         'status', 'resolved', 'next_attempt_at', now()))).*
       from actions a, generate_series(1, $2) where a.id = $1) copies`,
    [templateId, N],
  );
  await db.query('vacuum full analyze actions');
}

async function tableStats() {
  await db.query('select pg_stat_clear_snapshot()');
  const r = await db.query(
    `select pg_current_wal_insert_lsn() as lsn, n_tup_hot_upd as hot, n_tup_upd as updated
     from pg_stat_user_tables where relname = 'actions'`,
  );
  return r.rows[0];
}

async function measure(label, sql) {
  const ids = (await db.query('select id from actions where id <> $1 order by id', [templateId])).rows.map(
    (r) => r.id,
  );
  const before = await tableStats();
  const t0 = performance.now();
  for (let i = 0; i < ids.length; i += 16) await db.query(sql, [ids.slice(i, i + 16)]);
  const ms = performance.now() - t0;
  await sleep(600); // the statistics of the updates reach pg_stat_user_tables
  const after = await tableStats();
  const wal = Number(
    (await db.query('select $1::pg_lsn - $2::pg_lsn as d', [after.lsn, before.lsn])).rows[0].d,
  );
  process.stdout.write(
    `${label.padEnd(62)} WAL ${(wal / ids.length).toFixed(0).padStart(4)} B/row  ` +
      `${((ms * 1000) / ids.length).toFixed(1).padStart(5)} µs/row  HOT ${after.hot - before.hot} of ${after.updated - before.updated}\n`,
  );
}

const todays = `update actions set status = 'executing', lease_until = now() + interval '30 s',
  attempt_count = attempt_count + 1, updated_at = now() where id = any($1::uuid[])`;
const leaseOnly = `update actions set lease_until = now() + interval '30 s', attempt_count = attempt_count + 1
  where id = any($1::uuid[])`;
try {
  for (let round = 1; round <= 2; round++) {
    await db.query('alter table actions reset (fillfactor)');
    await db.query(
      `create index if not exists actions_lease_index on actions (lease_until) where status = 'executing'`,
    );
    await seed();
    await measure(`round ${round}: today's claim (status, lease, count, updated_at)`, todays);
    await seed();
    await measure(`round ${round}: lease and count only, lease index kept`, leaseOnly);
    await db.query('drop index actions_lease_index');
    await db.query('alter table actions set (fillfactor = 70)');
    await seed();
    await measure(`round ${round}: lease and count only, no lease index, fillfactor 70`, leaseOnly);
  }
} finally {
  await db.end();
  await stack.stop().catch(() => undefined);
  for (const cleanup of postgres.cleanups.reverse()) await cleanup();
}
