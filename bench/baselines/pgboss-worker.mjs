// Baseline "pg-boss worker": `count` jobs inserted all due at one moment, then boss.work in batches, each job an
// undici POST to the benchmark's loopback receiver; pg-boss completes the batch when the handler resolves.
// Tuned as a user reading pg-boss's docs would: batches with burstWhenBatchFull (without it a worker sleeps a
// polling interval between full batches), the shortest polling interval pg-boss accepts, two local workers.
import { args, lib, poster, tell } from './common.mjs';

const QUEUE = 'deliveries';
const count = Number(args.count);
const { PgBoss } = lib('pg-boss');
const boss = new PgBoss({ connectionString: args.db, max: 10, schema: 'baseline_boss' });
boss.on('error', (err) => process.stderr.write(`pg-boss: ${err.message}\n`));
await boss.start();
await boss.createQueue(QUEUE);

const due = Math.ceil(Date.now() + Number(args['lead-ms']));
const ids = [];
for (let i = 0; i < count; i += 1000) {
  const jobs = Array.from({ length: Math.min(1000, count - i) }, (_, k) => ({
    data: { due, n: i + k },
    startAfter: new Date(due),
  }));
  ids.push(...(await boss.insert(QUEUE, jobs, { returnId: true })));
}

const post = poster(args.receiver);
await boss.work(
  QUEUE,
  { batchSize: 100, localConcurrency: 2, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
  (jobs) => Promise.all(jobs.map((job) => post(job.id, job.data))),
);
tell({ ready: true, due, ids });
