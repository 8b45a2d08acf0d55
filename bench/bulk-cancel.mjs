// Benchmark "bulk-cancel": one bulk operation cancelling COUNT matched actions. Seeds COUNT scheduled
// actions to one host (and as many to another, which the filter must not touch) with generate_series in a throwaway
// database, then times the dry run, the start (the snapshot of the matched ids, in the API request), and the run in
// the worker until the operation is completed, sampling its progress.
//
//   node bench/bulk-cancel.mjs [--count 100000]
import { parseArgs } from 'node:util';
import { BUILDS, fmt, log, nowMs, sleep, startPostgres, startStack, table } from './lib.mjs';
import { seedRows } from './seed.mjs';

const { values } = parseArgs({ options: { count: { type: 'string' } } });
const COUNT = Number(values.count ?? 100_000);

/** COUNT scheduled actions to `host`, through the one seeding helper (bench/seed.mjs). */
async function seed(stack, host) {
  await seedRows(stack, {
    entity: 'Action',
    count: COUNT,
    params: [stack.accountId, host],
    values: {
      id: 'gen_random_uuid()',
      account_id: '$3',
      name: `'seeded ' || g`,
      mode: `'webhook'`,
      status: `'scheduled'`,
      timezone: `'UTC'`,
      scheduled_for: `now() + interval '30 days'`,
      next_attempt_at: `now() + interval '30 days'`,
      max_attempts: '5',
      retry_strategy: `'exponential'`,
      request: `jsonb_build_object('url', 'https://' || $4::text || '/hook', 'method', 'POST', 'headers', '{}'::jsonb)`,
      destination_host: '$4',
      destination_origin: `'https://' || $4::text`,
      created_at: `now() - g * interval '1 ms'`,
      updated_at: 'now()',
    },
  });
}

async function call(stack, method, path, body) {
  const t0 = nowMs();
  const res = await stack.api.request({
    path,
    method,
    headers: {
      authorization: `Bearer ${stack.apiKey}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const parsed = JSON.parse(await res.body.text());
  return { ms: nowMs() - t0, status: res.statusCode, body: parsed };
}

const postgres = await startPostgres();
let stack;
try {
  stack = await startStack('bulk', BUILDS[0], postgres);
  log(`bulk-cancel: seeding ${fmt(COUNT, 0)} + ${fmt(COUNT, 0)} actions`);
  await Promise.all([seed(stack, 'partner.example'), seed(stack, 'other.example')]);
  await stack.db.query('vacuum analyze actions');
  const filter = { destination_host: 'partner.example', status: 'scheduled' };
  const dry = await call(stack, 'POST', '/v1/bulk-operations', { operation: 'cancel', filter });
  const start = await call(stack, 'POST', '/v1/bulk-operations', {
    operation: 'cancel',
    filter,
    dry_run: false,
  });
  if (start.status !== 202) throw new Error(`start: ${start.status} ${JSON.stringify(start.body)}`);
  const id = start.body.data.id;
  const t0 = nowMs();
  const samples = [];
  let op;
  for (;;) {
    op = (await call(stack, 'GET', `/v1/bulk-operations/${id}`)).body.data;
    samples.push([nowMs() - t0, op.processed]);
    if (op.status !== 'running') break;
    await sleep(500);
  }
  const runMs = nowMs() - t0;
  const untouched = await stack.db.query(
    "select count(*)::int as n from actions where destination_host = 'other.example' and status = 'scheduled'",
  );
  table(
    `bulk cancel of ${fmt(COUNT, 0)} matched actions (another ${fmt(COUNT, 0)} not matched)`,
    ['step', 'ms', 'figure'],
    [
      ['dry run (200)', dry.ms, `matched ${dry.body.data.matched}, eligible ${dry.body.data.eligible}`],
      ['start (202: snapshot + job)', start.ms, `matched ${start.body.data.matched}`],
      ['run in the worker', runMs, `${fmt((op.processed / runMs) * 1000, 0)} actions/s`],
      [
        'result',
        '',
        `${op.status}: processed ${op.processed}, affected ${op.affected}, skipped ${op.skipped}`,
      ],
      ['not matched, still scheduled', '', untouched.rows[0].n],
    ],
  );
} finally {
  await stack?.stop();
  await postgres.stop();
}
