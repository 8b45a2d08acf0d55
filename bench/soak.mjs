// Soak run: `node bench/soak.mjs [--minutes 30] [--due-rate 200] [--create-rate 50]
// [--sample-seconds 60] [--hold-xmin-minutes 0]`. One sched stack (BENCH_ROLES picks the layout; `split` runs both roles as separate
// processes) on a fresh database: `--due-rate` webhooks a second come due at a loopback receiver (each created a few
// seconds ahead) while `--create-rate` far-future actions a second pile up, as production's mix does. Every sample
// period it records each server process's RSS, the lateness p50/p99 of the period's deliveries, lost and doubled
// deliveries, dead and live tuples and the size of the busiest tables; at the end, whether RSS, lateness or the
// tables trend upward (last third of the samples against the first), and a JSON file in bench/.tmp/.
// Long: run it on a machine of its own, never beside other work (the figures would measure the neighbours).
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  BUILDS,
  createAction,
  log,
  machine,
  nowMs,
  roleLayout,
  rssMiB,
  sleep,
  startPostgres,
  startReceiver,
  startStack,
  summarize,
  TMP,
  table,
  webhookAt,
} from './lib.mjs';

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    'due-rate': { type: 'string', default: '200' },
    'create-rate': { type: 'string', default: '50' },
    'sample-seconds': { type: 'string', default: '60' },
    // A transaction holding the xmin horizon (vacuum cannot remove what it might still see) for
    // this many minutes from the start: dead tuples pile up; creates and lateness should degrade gracefully.
    'hold-xmin-minutes': { type: 'string', default: '0' },
  },
});
const holdXminMinutes = Number(flags['hold-xmin-minutes']);
const minutes = Number(flags.minutes);
const dueRate = Number(flags['due-rate']);
const createRate = Number(flags['create-rate']);
const sampleMs = Number(flags['sample-seconds']) * 1000;
for (const [name, v] of Object.entries({ minutes, dueRate, createRate, sampleMs })) {
  if (!(v > 0)) {
    process.stderr.write(`${name} must be a positive number\n`);
    process.exit(2);
  }
}
const LEAD_MS = 5_000;
const TICK_MS = 100;
const MAX_IN_FLIGHT = 200;

const postgres = await startPostgres();
const receiver = await startReceiver();
let stack;
try {
  stack = await startStack('soak', BUILDS[0], postgres);
  process.stdout.write(
    `sched soak ${new Date().toISOString()}\n  machine: ${machine()}\n  ${BUILDS[0].label}, serve --role ${roleLayout().label}\n` +
      `  ${minutes} min: ${dueRate} due/s and ${createRate} far-future creates/s; a sample every ${sampleMs / 1000} s\n`,
  );
  const samples = await soak(stack);
  report(samples);
  await fs.mkdir(TMP, { recursive: true });
  const file = path.join(TMP, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await fs.writeFile(
    file,
    JSON.stringify(
      { minutes, dueRate, createRate, machine: machine(), samples, final: samples.final },
      null,
      2,
    ),
  );
  log(`samples written to ${file}`);
} finally {
  await stack?.stop();
  await receiver.close();
  await postgres.stop();
}

async function soak(stack) {
  /** @type {any} */
  const samples = [];
  if (holdXminMinutes > 0) await holdXmin(stack, holdXminMinutes);
  const counts = { created: 0, dueCreated: 0, failed: 0, statuses: new Map() };
  let inFlight = 0;
  let dueSent = 0;
  let farSent = 0;
  const start = nowMs();
  const end = start + minutes * 60_000;
  const send = (payload, due = false) => {
    if (inFlight >= MAX_IN_FLIGHT) {
      counts.failed += 1; // the API is behind: counted, not queued without bound here
      return;
    }
    inFlight += 1;
    createAction(stack, payload)
      .then((r) => {
        counts.statuses.set(r.status, (counts.statuses.get(r.status) ?? 0) + 1);
        if (r.status === 201) counts.created += 1;
        if (r.status === 201 && due) counts.dueCreated += 1;
      })
      .catch(() => {
        counts.failed += 1;
      })
      .finally(() => {
        inFlight -= 1;
      });
  };
  let nextSample = start + sampleMs;
  let arrivalsFrom = 0;
  while (nowMs() < end) {
    const t = nowMs();
    const elapsed = (t - start) / 1000;
    // Due webhooks: each due LEAD_MS after it is created, spread evenly.
    while (dueSent < elapsed * dueRate) {
      send(
        webhookAt(receiver.url, t + LEAD_MS + (dueSent % Math.ceil(dueRate / 10)) * (1000 / dueRate)),
        true,
      );
      dueSent += 1;
    }
    // Far-future actions (one to seven days ahead): the table grows as it does in production.
    while (farSent < elapsed * createRate) {
      const ahead = 86_400_000 * (1 + (farSent % 7));
      send(
        JSON.stringify({ request: { url: receiver.url }, scheduled_for: new Date(t + ahead).toISOString() }),
      );
      farSent += 1;
    }
    if (t >= nextSample) {
      const arrivals = receiver.arrivals.slice(arrivalsFrom);
      arrivalsFrom = receiver.arrivals.length;
      samples.push(await sample(stack, (t - start) / 60_000, arrivals, counts));
      const last = samples.at(-1);
      log(
        `soak ${last.minute.toFixed(1)} min: rss ${last.rssMiB.map((v) => Math.round(v)).join('/')} MiB, lateness p99 ${Math.round(last.lateness.p99)} ms (recorded ${Math.round(last.recorded.p99)} ms), dead tuples ${last.deadTuples}, ${last.statuses}`,
      );
      nextSample += sampleMs;
    }
    await sleep(TICK_MS);
  }
  // Let the last due webhooks arrive before the final count.
  await sleep(LEAD_MS + 5_000);
  samples.final = {
    dueSent,
    dueCreated: counts.dueCreated,
    dropped: counts.failed,
    distinct: receiver.distinct(),
    duplicates: receiver.duplicates(),
  };
  return samples;
}

/** An open repeatable-read transaction with a snapshot, released after `minutes` (or at the end of the run). */
async function holdXmin(stack, minutes) {
  const client = await stack.db.connect();
  await client.query('begin isolation level repeatable read');
  await client.query('select count(*) from actions');
  log(`holding the xmin horizon for ${minutes} min`);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await client.query('commit').catch(() => undefined);
    client.release();
    log('xmin horizon released');
  };
  const timer = setTimeout(() => void release(), minutes * 60_000);
  stack.cleanups.push(async () => {
    clearTimeout(timer);
    await release();
  });
}

async function sample(stack, minute, arrivals, counts) {
  // Lateness as the receiver saw it (arrival against due: the bench's own event loop included, which slows as the
  // bench's heap grows over a long run) and as sched recorded it (the attempt's start against its due time).
  const lateness = summarize(arrivals.filter((a) => Number.isFinite(a.due)).map((a) => a.at - a.due));
  const since = new Date(Math.min(...arrivals.map((a) => a.at), Date.now()) - 1);
  const {
    rows: [recorded],
  } = await stack.db.query(
    `select percentile_cont(0.5) within group (order by lateness_ms) as p50,
            percentile_cont(0.99) within group (order by lateness_ms) as p99,
            avg(duration_ms)::float8 as duration
       from delivery_attempts where started_at >= $1`,
    [since],
  );
  const { rows: tables } = await stack.db.query(
    `select schemaname || '.' || relname as name, n_live_tup::bigint as live, n_dead_tup::bigint as dead,
            pg_total_relation_size(relid) as bytes
       from pg_stat_user_tables order by pg_total_relation_size(relid) desc limit 6`,
  );
  const rss = await Promise.all(stack.pids.map((pid) => rssMiB(pid)));
  const statuses = [...counts.statuses.entries()].map(([s, n]) => `${s}:${n}`).join(' ');
  counts.statuses.clear();
  return {
    minute,
    rssMiB: rss,
    lateness,
    recorded: {
      p50: recorded?.p50 ?? Number.NaN,
      p99: recorded?.p99 ?? Number.NaN,
      durationMs: recorded?.duration,
    },
    delivered: arrivals.length,
    dropped: counts.failed,
    statuses,
    deadTuples: tables.reduce((n, t) => n + Number(t.dead), 0),
    tables: tables.map((t) => ({
      name: t.name,
      live: Number(t.live),
      dead: Number(t.dead),
      mib: Number(t.bytes) / 2 ** 20,
    })),
  };
}

function report(samples) {
  table(
    'soak samples',
    [
      'minute',
      'RSS MiB',
      'delivered',
      'late p50 ms',
      'late p99 ms',
      'recorded p99 ms',
      'request ms',
      'dead tuples',
      'largest tables (MiB)',
    ],
    samples.map((s) => [
      s.minute.toFixed(1),
      s.rssMiB.map((v) => (v === null ? '?' : Math.round(v))).join('/'),
      s.delivered,
      s.lateness.p50,
      s.lateness.p99,
      s.recorded.p99,
      s.recorded.durationMs?.toFixed(1) ?? '?',
      s.deadTuples,
      s.tables
        .slice(0, 3)
        .map((t) => `${t.name} ${t.mib.toFixed(1)}`)
        .join(', '),
    ]),
  );
  const third = Math.max(1, Math.floor(samples.length / 3));
  const median = (xs) => summarize(xs).p50;
  const trend = (pick) => {
    const first = median(samples.slice(0, third).map(pick));
    const last = median(samples.slice(-third).map(pick));
    return { first, last, ratio: last / first };
  };
  /** @type {[string, { first: number, last: number, ratio: number }][]} */
  const rows = [
    ['RSS (first process), MiB', trend((s) => s.rssMiB[0] ?? Number.NaN)],
    ['lateness p99 at the receiver, ms', trend((s) => s.lateness.p99)],
    ['lateness p99 recorded by sched, ms', trend((s) => s.recorded.p99)],
    ['dead tuples', trend((s) => s.deadTuples)],
  ];
  table(
    'trend: median of the last third of the samples against the first third (ratio > 1.2 flags an upward trend)',
    ['figure', 'first third', 'last third', 'ratio', 'upward?'],
    rows.map(([name, t]) => [name, t.first, t.last, t.ratio.toFixed(2), t.ratio > 1.2 ? 'YES' : 'no']),
  );
  const f = samples.final;
  process.stdout.write(
    `\ndue webhooks sent ${f.dueSent} (not sent, the API ${MAX_IN_FLIGHT} requests behind: ${f.dropped}), created (201) ${f.dueCreated}, delivered (distinct) ${f.distinct}, lost ${f.dueCreated - f.distinct}, doubled ${f.duplicates}\n`,
  );
}
