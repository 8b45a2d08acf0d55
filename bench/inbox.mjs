// Benchmark "inbox": the failed-delivery inbox of one account holding COUNT actions. Seeds them with
// generate_series straight into a throwaway database of a throwaway PostgreSQL (90 % executed, 6 % scheduled, 4 %
// failed, over 50 destination hosts or --hosts, with the last-attempt columns a recorded attempt leaves), then times
// the list queries of GET /v1/actions through the real server, then what the console's other panels read (overview,
// destinations, approvals, bulk operations, audit log), and prints the plans PostgreSQL chose for the inbox queries.
//
//   node bench/inbox.mjs [--count 1000000] [--repeat 20] [--hosts 50]
//
// The goal: each inbox query of an account with a million actions answers in well under 100 ms (docs/performance.md).
import { parseArgs } from 'node:util';
import { BUILDS, fmt, log, nowMs, startPostgres, startStack, summarize, table } from './lib.mjs';
import { seedRows } from './seed.mjs';

const { values } = parseArgs({
  options: { count: { type: 'string' }, repeat: { type: 'string' }, hosts: { type: 'string' } },
});
const COUNT = Number(values.count ?? 1_000_000);
const REPEAT = Number(values.repeat ?? 20);
/** Destination hosts the actions share: 50, or one per customer of a sender of webhooks (thousands). */
const HOSTS = Number(values.hosts ?? 50);

/** The account's actions, through the one seeding helper (bench/seed.mjs). */
async function seed(stack) {
  const t0 = nowMs();
  const insertMs = await seedRows(stack, {
    entity: 'Action',
    count: COUNT,
    params: [stack.accountId, COUNT, HOSTS],
    from: `, lateral (select case when g % 100 < 90 then 'executed' when g % 100 < 96 then 'scheduled'
                                  else 'failed' end as st,
                             'host-' || ((g / 100) % $5) || '.example' as host,
                             now() - interval '30 days' + (g::float8 / $4) * interval '30 days' as created) s,
             lateral (select case when st = 'scheduled' then now() + interval '1 day' else created end as at) t`,
    values: {
      id: 'gen_random_uuid()',
      account_id: '$3',
      name: `'seeded ' || g`,
      mode: `'webhook'`,
      status: 'st',
      timezone: `'UTC'`,
      scheduled_for: 'at',
      next_attempt_at: `case when st = 'scheduled' then at end`,
      max_attempts: '5',
      attempt_count: `case when st = 'scheduled' then 0 else 1 end`,
      retry_strategy: `'exponential'`,
      request: `jsonb_build_object('url', 'https://' || host || '/hook', 'method', 'POST', 'headers', '{}'::jsonb)`,
      destination_host: 'host',
      destination_origin: `'https://' || host`,
      last_attempt_at: `case when st <> 'scheduled' then at end`,
      last_status_code: `case when st = 'executed' then 200 when st = 'failed' then (array[500, 503, 404, null])[1 + g % 4] end`,
      last_error_class: `case when st = 'failed' then (array['http', 'http', 'http', 'timeout'])[1 + g % 4] end`,
      last_lateness_ms: `case when st <> 'scheduled' then 3 end`,
      created_at: 'created',
      updated_at: `created + interval '1 minute'`,
    },
  });
  await stack.db.query('vacuum analyze actions');
  return { insertMs, totalMs: nowMs() - t0 };
}

async function get(stack, query, path = `/v1/actions?${query}`) {
  const t0 = nowMs();
  const res = await stack.api.request({
    path,
    method: 'GET',
    headers: { authorization: `Bearer ${stack.apiKey}` },
  });
  const body = JSON.parse(await res.body.text());
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${JSON.stringify(body)}`);
  const total = body.meta?.total ?? (Array.isArray(body.data) ? body.data.length : 1);
  return { ms: nowMs() - t0, total };
}

const day = new Date(Date.now() - 86_400_000).toISOString();
const QUERIES = [
  ['status=failed', 'status=failed'],
  ['status=failed, one host', 'status=failed&destination_host=host-7.example'],
  ['one host (all statuses)', 'destination_host=host-7.example'],
  ['error_class=timeout', 'error_class=timeout'],
  ['last_status_code=5xx, one host', 'last_status_code=5xx&destination_host=host-7.example'],
  ['failed in the last day', `failed_after=${encodeURIComponent(day)}`],
  ['failed, created in the last day', `status=failed&created_after=${encodeURIComponent(day)}`],
  ['failed, 5xx, page 20', 'status=failed&last_status_code=5xx&page=20'],
  ['no filter (count of everything)', ''],
];

/** What the console's other panels read on the same account (each page should answer in under 300 ms of server time). */
const CONSOLE_READS = [
  ['overview: GET /v1/stats', '/v1/stats'],
  ['failed inbox: 100 latest failed', '/v1/actions?status=failed&per_page=100'],
  ['in flight: GET /v1/actions?status=executing', '/v1/actions?status=executing'],
  ['destinations: GET /v1/destinations', '/v1/destinations'],
  ['a destination: GET /v1/destinations/{host}', '/v1/destinations/host-7.example'],
  ['approvals waiting: GET /v1/approvals', '/v1/approvals'],
  ['bulk operations: GET /v1/bulk-operations', '/v1/bulk-operations'],
  ['audit log: GET /v1/audit-events?limit=50', '/v1/audit-events?limit=50'],
];

/** Each read once to warm it, then REPEAT times: [label, matched, p50, p90, max]. */
async function timeAll(stack, reads) {
  const rows = [];
  for (const [label, query, path] of reads) {
    await get(stack, query, path); // warm the plan cache and the pages
    const times = [];
    let total = 0;
    for (let i = 0; i < REPEAT; i += 1) {
      const r = await get(stack, query, path);
      times.push(r.ms);
      total = r.total;
    }
    const s = summarize(times);
    rows.push([label, total, s.p50, s.p90, s.max]);
  }
  return rows;
}

const postgres = await startPostgres();
let stack;
try {
  stack = await startStack('inbox', BUILDS[0], postgres);
  log(`inbox: seeding ${fmt(COUNT, 0)} actions`);
  const seeded = await seed(stack);
  log(
    `inbox: seeded in ${fmt(seeded.insertMs / 1000)} s (with vacuum analyze ${fmt(seeded.totalMs / 1000)} s)`,
  );
  const rows = await timeAll(stack, QUERIES);
  table(
    `GET /v1/actions of one account with ${fmt(COUNT, 0)} actions (HTTP round trip, ms; ${REPEAT} runs each)`,
    ['query', 'matched', 'p50', 'p90', 'max'],
    rows,
  );
  table(
    `The console's other reads on the same account (HTTP round trip, ms; ${REPEAT} runs each)`,
    ['read', 'rows', 'p50', 'p90', 'max'],
    await timeAll(
      stack,
      CONSOLE_READS.map(([label, path]) => [label, '', path]),
    ),
  );
  for (const [label, where] of [
    ['status=failed, one host', "status = 'failed' and destination_host = 'host-7.example'"],
    ['error_class=timeout', "last_error_class = 'timeout'"],
    ['failed in the last day', `status = 'failed' and updated_at >= '${day}'`],
    [
      'last_status_code=5xx, one host',
      "last_status_code between 500 and 599 and destination_host = 'host-7.example'",
    ],
    ['failed, 5xx', "phase = 'failed' and last_status_code between 500 and 599"],
  ]) {
    const plan = await stack.db.query(
      `explain (analyze, buffers off, costs off) select * from actions where account_id = $1 and chain_id is null
         and ${where} order by created_at desc, id desc limit 25`,
      [stack.accountId],
    );
    process.stdout.write(`\nplan: ${label}\n${plan.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\n`);
  }
} finally {
  await stack?.stop();
  await postgres.stop();
}
