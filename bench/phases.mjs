// The measurements themselves, shared by the benchmarks: create load, fire lateness, delivery throughput.
import {
  auditsCreates,
  cpuShare,
  cpuSnapshot,
  createAction,
  loadLoop,
  log,
  nowMs,
  pgCost,
  pgMark,
  recordCreates,
  sleep,
  startBaseline,
  summarize,
  waitSampler,
  webhookAt,
} from './lib.mjs';

/** Never reached during a run: the create benchmark's actions stay pending (an hour or more out). */
const UNREACHED_URL = 'http://127.0.0.1:9/never';

/**
 * POST /v1/actions from `concurrency` keep-alive connections for `durationMs` (or until `count` creates were sent)
 * after a short warm-up. Every action is a webhook due in an hour or more (beyond the one-minute announce window: the
 * common case of a create): 7 ms apart by default, or at `dueAt(i)`.
 *
 * @param {any} stack
 * @param {{ concurrency?: number, durationMs?: number, count?: number, warmupMs?: number, sealWaitMs?: number,
 *   dueAt?: (i: number) => number }} [options]
 */
export async function createLoad(
  stack,
  {
    concurrency = 50,
    durationMs = 10_000,
    count = Infinity,
    warmupMs = 2_000,
    sealWaitMs = 1_500,
    dueAt = undefined,
  } = {},
) {
  const base = Date.now() + 3_600_000;
  /** @type {(i: number) => number} */
  const due = dueAt ?? ((i) => base + i * 7);
  const send = (i) => createAction(stack, webhookAt(UNREACHED_URL, due(i)));
  if (warmupMs) {
    log(`create: warm-up ${warmupMs} ms at ${concurrency} connections`);
    await loadLoop({ concurrency, durationMs: warmupMs, send });
    // The warm-up's own events are sealed before the window opens, so the window charges each create's event once
    // (it sealed about a quarter more events than it created before).
    await sleep(sealWaitMs);
  }
  const what = count === Infinity ? `${durationMs} ms` : `${count} creates`;
  log(`create: measuring ${what} at ${concurrency} connections`);
  const window = await openWindow(stack);
  const sampler = waitSampler(stack);
  const r = await loadLoop({ concurrency, durationMs, count, send: (i) => send(i + 1_000_000) });
  const waits = await sampler.stop();
  // The work a create leaves for a moment later (the audit sealer's pass each second) is charged to the creates.
  await sleep(sealWaitMs);
  const ok = r.statuses.get(201) ?? 0;
  const { cpu, pg: pgWork } = await closeWindow(stack, window, ok);
  return {
    concurrency,
    seconds: r.elapsedMs / 1000,
    requests: r.completed,
    created: ok,
    perSecond: ok / (r.elapsedMs / 1000),
    latency: summarize(r.latencies),
    otherStatuses: Object.fromEntries([...r.statuses].filter(([s]) => s !== 201)),
    errors: Object.fromEntries(r.errors),
    cpu,
    pg: pgWork,
    waits,
  };
}

/**
 * How far ahead the first action of a run is due: `leadMs`, or more when the create rate measured by the pilot says
 * creating `count` takes longer; at most 45 s, since on a loaded machine the pilot's rate can be a tenth of the run's
 * (a create that answers too close to its due time is left out of the figures and counted in `createdLate`).
 */
function leadFor(count, leadMs, createRate) {
  const needed = createRate ? (count / createRate) * 1000 * 1.25 + 2_000 : 0;
  return Math.max(leadMs, Math.min(needed, 45_000));
}

/** The due times of a lateness run: `count` evenly over `spreadMs` from `first` (baselines/timer.mjs computes the same). */
function dueTimes(first, spreadMs, count) {
  const step = spreadMs / count;
  return Array.from({ length: count }, (_, i) => Math.round(first + i * step));
}

/**
 * Creates `count` webhook actions to `receiver`, due evenly over `spreadMs`, each at an exact millisecond
 * (scheduled_for), in due order. The first is due once all creates should be done: `leadMs`, or more when the
 * create rate measured by `pilotCreateRate` says creating takes longer, so the firing window sees only firing.
 * An action whose create answered less than 250 ms before its due time is left out of the figures (counted in
 * `createdLate`): the server then fires it at once and the bench, not the server, made it late.
 * Lateness = arrival at the receiver minus the scheduled time. The server's own view (delivery_attempts.
 * lateness_ms: attempt start minus due) is read from the database for comparison.
 */
export async function fireLateness(
  stack,
  receiver,
  { count, spreadMs, leadMs, createRate, concurrency = 25, label, createLoadConnections = 0 },
) {
  receiver.reset();
  const lead = leadFor(count, leadMs, createRate);
  const first = Math.ceil(Date.now() + lead);
  const dues = dueTimes(first, spreadMs, count);
  const ids = new Set();
  const createdLate = new Set();
  log(`${label}: creating ${count} actions due from +${Math.round(lead)} ms over ${spreadMs} ms`);
  const created = await loadLoop({
    concurrency,
    count,
    send: async (i) => {
      const r = await createAction(stack, webhookAt(receiver.url, dues[i]));
      if (r.status === 201) {
        const { id } = JSON.parse(r.body).data;
        ids.add(id);
        if (Date.now() > dues[i] - 250) createdLate.add(id);
      }
      return r;
    },
  });
  if (ids.size !== count) {
    throw new Error(
      `${label}: only ${ids.size}/${count} creates succeeded (${JSON.stringify(Object.fromEntries(created.statuses))}, ${JSON.stringify(Object.fromEntries(created.errors))})`,
    );
  }
  if (createdLate.size)
    log(`${label}: warning, ${createdLate.size} creates answered within 250 ms of their due time`);
  log(
    `${label}: ${count} created in ${Math.round(created.elapsedMs)} ms (${Math.round(count / (created.elapsedMs / 1000))}/s); waiting for deliveries`,
  );
  return {
    ...(await observeFiring(stack, receiver, { label, ids, dues, createdLate, createLoadConnections })),
    createPerSecond: count / (created.elapsedMs / 1000),
  };
}

/**
 * The timer floor's version of a lateness run (baselines/timer.mjs: a setTimeout to each due moment and the same
 * POST), with the same due times and the same receiver.
 */
export async function floorLateness(postgres, receiver, { count, spreadMs, leadMs, label }) {
  receiver.reset();
  const first = Math.ceil(Date.now() + leadMs);
  const floor = await startBaseline('timer', 'timer floor', postgres, {
    withDatabase: false,
    args: { receiver: receiver.url, count, first, step: spreadMs / count },
  });
  try {
    const ids = new Set(floor.message.ids);
    const dues = dueTimes(first, spreadMs, count);
    return await observeFiring(floor, receiver, { label, ids, dues, createdLate: new Set() });
  } finally {
    await floor.stop();
  }
}

/** Waits for the actions `ids` (due at `dues`, sorted) to arrive at the receiver and measures their lateness. */
async function observeFiring(stack, receiver, { label, ids, dues, createdLate, createLoadConnections = 0 }) {
  const count = dues.length;
  const first = dues[0];
  const last = dues[count - 1];
  const headroomMs = first - nowMs();
  if (headroomMs < 250)
    log(`${label}: warning, ready only ${Math.round(headroomMs)} ms before the first due time`);
  await sleep(Math.max(0, first - 100 - Date.now()));
  const mark = await pgMark(stack);
  await sleep(Math.max(0, first - Date.now()));
  const cpu0 = await cpuSnapshot(stack);
  const sampler = waitSampler(stack);
  // Optionally, API traffic while the actions fall due: far-future creates from `createLoadConnections` loops.
  const base = Date.now() + 3_600_000;
  const background = createLoadConnections
    ? loadLoop({
        concurrency: createLoadConnections,
        durationMs: Math.max(0, last - Date.now()),
        send: (i) => createAction(stack, webhookAt(UNREACHED_URL, base + i * 11)),
      })
    : null;
  const all = await receiver.waitFor(count, Math.max(0, last - Date.now()) + 30_000);
  const bg = background ? await background : null;
  const waits = await sampler.stop();
  if (!all) log(`${label}: timed out with ${receiver.distinct()}/${count} delivered`);
  await sleep(300); // stragglers: a duplicate delivery would show up here
  // The dead row versions the deliveries left are part of their cost: vacuumed inside the window.
  if (stack.db) await stack.db.query('vacuum');
  const cpu = cpuShare(cpu0, await cpuSnapshot(stack));
  const pgWork = await pgCost(mark, receiver.distinct());

  const firstArrival = new Map();
  for (const a of receiver.arrivals) if (ids.has(a.id) && !firstArrival.has(a.id)) firstArrival.set(a.id, a);
  const counted = [...firstArrival.values()].filter((a) => !createdLate.has(a.id));
  const lateness = counted.map((a) => a.at - a.due);
  // The server's own figure, where there is a sched server to ask.
  const server = stack.accountId
    ? await stack.db.query(
        `select a.action_id, a.lateness_ms from delivery_attempts a join actions x on x.id = a.action_id
          where x.account_id = $1 and a.action_id = any($2::uuid[]) and a.attempt_number = 1`,
        [stack.accountId, [...ids]],
      )
    : { rows: [] };
  return {
    label,
    count,
    spreadSeconds: (last - first) / 1000,
    duePerSecond: count / ((last - first) / 1000 || 1),
    delivered: firstArrival.size,
    missing: count - firstArrival.size,
    duplicates: receiver.duplicates(),
    createdLate: createdLate.size,
    early: lateness.filter((l) => l < -1).length,
    lateness: summarize(lateness),
    serverLateness: summarize(
      server.rows.filter((r) => !createdLate.has(r.action_id)).map((r) => r.lateness_ms),
    ),
    createHeadroomMs: headroomMs,
    backgroundCreatesPerSecond: bg ? (bg.statuses.get(201) ?? 0) / (bg.elapsedMs / 1000) : null,
    cpu,
    pg: pgWork,
    waits,
  };
}

/**
 * Percent of one core the system's server processes and PostgreSQL use together over `ms` while nothing is due
 * (their timers, scans and sealer only).
 */
export async function idleCpuPercent(stack, ms) {
  const before = await cpuSnapshot(stack);
  await sleep(ms);
  const cpu = cpuShare(before, await cpuSnapshot(stack));
  return cpu.server == null || cpu.postgres == null ? null : cpu.server + cpu.postgres;
}

/** Creates per second at `concurrency` over `durationMs` of actions due within a minute, to size the lead of a firing run. */
export async function pilotCreateRate(stack, { concurrency = 25, durationMs = 3_000 } = {}) {
  // Like the measured creates, these are due within the one-minute window, so each writes its pg-boss job and a
  // NOTIFY (dearer than a far-future create); a dedup key lets one call cancel them all before any falls due.
  const key = `bench-pilot-${Date.now()}`;
  const base = Date.now() + 50_000;
  const r = await loadLoop({
    concurrency,
    durationMs,
    send: (i) =>
      createAction(stack, {
        request: { url: UNREACHED_URL },
        scheduled_for: new Date(base + i).toISOString(),
        dedup_keys: [key],
      }),
  });
  const cancel = await stack.api.request({
    path: '/v1/actions/by-coordination-key',
    method: 'DELETE',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ coordination_key: key }),
  });
  await cancel.body.text();
  if (cancel.statusCode !== 200)
    throw new Error(`pilot: cancelling by dedup key answered ${cancel.statusCode}`);
  return (r.statuses.get(201) ?? 0) / (r.elapsedMs / 1000);
}

/**
 * `count` actions all due at one moment (created ahead through the API, lead sized from `createRate`); deliveries
 * per second as the receiver sees them, from the due moment to the last arrival, from first to last arrival, and
 * in the busiest 250 ms. `payload(i, due)` makes the i-th create's body (by default a plain webhook), and the
 * window waits for `callbacks` callbacks as well.
 *
 * @param {any} stack
 * @param {any} receiver
 * @param {{ count: number, leadMs: number, createRate?: number, concurrency?: number,
 *   payload?: (i: number, due: number) => string, callbacks?: number }} options
 */
export async function deliveryBurst(
  stack,
  receiver,
  { count, leadMs, createRate, concurrency = 50, payload = undefined, callbacks = 0 },
) {
  receiver.reset();
  // The burst's creates write no audit event: their seal would otherwise fall inside the delivery window in some
  // rounds and not in others (650-930 B per delivery when it did), a cost of the creates, which the create benchmark
  // measures; a delivery writes no audit event of its own. Turned off before the idle measurement, so the setting's
  // own event is sealed before the window opens.
  if (stack.url) await recordCreates(stack, false);
  // The system's CPU share while nothing is due: the window below opens when the creates end and so includes the wait
  // until the due moment, which `idleMsBeforeDue` lets the figures take out (bench/keys.mjs).
  const idlePercent = await idleCpuPercent(stack, 2_000);
  const lead = leadFor(count, leadMs, createRate);
  const due = Math.ceil(Date.now() + lead);
  const ids = new Set();
  log(`delivery: creating ${count} actions all due at +${Math.round(lead)} ms`);
  const plain = webhookAt(receiver.url, due);
  const created = await loadLoop({
    concurrency,
    count,
    send: async (i) => {
      const r = await createAction(stack, payload ? payload(i, due) : plain);
      if (r.status === 201) ids.add(JSON.parse(r.body).data.id);
      return r;
    },
  });
  if (ids.size !== count)
    throw new Error(
      `delivery: only ${ids.size}/${count} creates succeeded (${JSON.stringify(Object.fromEntries(created.statuses))})`,
    );
  log(`delivery: ${count} created in ${Math.round(created.elapsedMs)} ms; waiting for deliveries`);
  // The window opens as the creates end, so the work done before the due moment (the promote) counts.
  const window = await openWindow(stack);
  const idleMsBeforeDue = Math.max(0, due - nowMs());
  const observed = await observeBurst(stack, receiver, { ids, due, window, callbacks });
  if (auditsCreates()) await recordCreates(stack, true);
  return {
    ...observed,
    createPerSecond: count / (created.elapsedMs / 1000),
    idleCpuMs: idlePercent == null ? undefined : (idlePercent / 100) * idleMsBeforeDue,
  };
}

/**
 * The mixed-outcome burst's i-th action, by i modulo 20: half plain webhooks answered 2xx, a fifth with a callback
 * URL, a fifth recurring (every 5 minutes: one occurrence falls in the window, the next is scheduled), one in
 * twenty answered 503 (an attempt that fails and is scheduled again) and one 400 (failed for good). The receiver
 * answers by the body's `kind` (`mixedAnswer`).
 */
export function mixedPayload(receiver) {
  return (i, due) => {
    const k = i % 20;
    const kind = k < 10 ? 'ok' : k < 14 ? 'callback' : k < 18 ? 'recurring' : k === 18 ? 'retry' : 'fail';
    return JSON.stringify({
      request: { url: receiver.url, body: { due, kind } },
      scheduled_for: new Date(due).toISOString(),
      ...(kind === 'callback' ? { callback_url: receiver.callbackUrl } : {}),
      ...(kind === 'recurring'
        ? { recurrence: { frequency: 5, unit: 'm', end_type: 'count', max_occurrences: 3 } }
        : {}),
    });
  };
}

/** The callbacks a mixed burst of `count` asks for (one per action with a callback URL). */
export const mixedCallbacks = (count) =>
  Array.from({ length: count }, (_, i) => i % 20).filter((k) => k >= 10 && k < 14).length;

/** The receiver's answer to a mixed burst's request. */
export const mixedAnswer = (body) => (body?.kind === 'retry' ? 503 : body?.kind === 'fail' ? 400 : 200);

/** The pg-boss worker baseline's version of a burst: `count` jobs inserted due at one moment, the same receiver. */
export async function workerBurst(postgres, receiver, { count }) {
  receiver.reset();
  const worker = await startBaseline('pgboss-worker', 'pg-boss worker', postgres, {
    // Inserting runs at several thousand jobs a second; two seconds cover the worker's start.
    args: { receiver: receiver.url, count, 'lead-ms': 2_000 + count / 2 },
  });
  try {
    const { due, ids } = worker.message;
    const window = await openWindow(worker);
    return await observeBurst(worker, receiver, { ids: new Set(ids), due, window });
  } finally {
    await worker.stop();
  }
}

/** Marks the start of a measured window: PostgreSQL's counters (`pgMark`) and every process's CPU. */
export async function openWindow(stack) {
  return { mark: await pgMark(stack), cpu0: await cpuSnapshot(stack) };
}

/**
 * Closes a window after a `VACUUM` of the system's database (the dead versions its work left are part of its cost):
 * CPU shares and PostgreSQL's work per unit.
 */
export async function closeWindow(stack, window, units) {
  if (stack.db) await stack.db.query('vacuum');
  const cpu = cpuShare(window.cpu0, await cpuSnapshot(stack));
  return { cpu, pg: await pgCost(window.mark, units) };
}

async function observeBurst(stack, receiver, { ids, due, window, callbacks = 0 }) {
  const count = ids.size;
  const headroomMs = due - nowMs();
  if (headroomMs < 250) log(`delivery: warning, ready only ${Math.round(headroomMs)} ms before the due time`);
  const sampler = waitSampler(stack);
  const all = await receiver.waitFor(count, Math.max(0, due - Date.now()) + 120_000);
  if (callbacks && !(await receiver.waitForCallbacks(callbacks, 30_000)))
    log(`delivery: timed out with ${receiver.counts.callbacks}/${callbacks} callbacks`);
  const waits = await sampler.stop();
  if (!all) log(`delivery: timed out with ${receiver.distinct()}/${count} delivered`);
  await sleep(300); // stragglers: a duplicate delivery would show up here
  const { cpu, pg: pgWork } = await closeWindow(stack, window, receiver.distinct());

  const firsts = new Map();
  for (const a of receiver.arrivals) if (ids.has(a.id) && !firsts.has(a.id)) firsts.set(a.id, a.at);
  const times = [...firsts.values()].sort((a, b) => a - b);
  const t0 = times[0] ?? Number.NaN;
  const tn = times[times.length - 1] ?? Number.NaN;
  // Arrivals per 250 ms after the due moment, to show ramp-up and steady rate.
  const buckets = [];
  for (const t of times) {
    const b = Math.floor((t - due) / 250);
    if (b >= 0) buckets[b] = (buckets[b] ?? 0) + 1;
  }
  const lateness = times.map((t) => t - due);
  return {
    count,
    delivered: firsts.size,
    missing: count - firsts.size,
    duplicates: receiver.duplicates(),
    early: lateness.filter((l) => l < -1).length,
    firstArrivalAfterDueMs: t0 - due,
    lastArrivalAfterDueMs: tn - due,
    perSecondFromDue: firsts.size / ((tn - due) / 1000),
    perSecondFirstToLast: (firsts.size - 1) / ((tn - t0) / 1000),
    peakPerSecond: Math.max(0, ...Array.from(buckets, (b) => b ?? 0)) * 4,
    lateness: summarize(lateness),
    createHeadroomMs: headroomMs,
    callbacks: receiver.counts.callbacks,
    // TLS receivers only: new connections (full or resumed handshakes) per delivery.
    handshakesPerDelivery: receiver.counts.handshakes / (firsts.size || 1),
    resumedHandshakes: receiver.counts.resumed,
    cpu,
    pg: pgWork,
    waits,
  };
}
