// Baseline "timer floor": a bare setTimeout to each due moment and the same POST to the receiver. What the event
// loop alone gives on this machine, with no database in the way.
import { args, poster, tell } from './common.mjs';

const count = Number(args.count);
const first = Number(args.first);
const step = Number(args.step);
const post = poster(args.receiver);
const ids = [];
let failed = 0;
for (let i = 0; i < count; i++) {
  // The same due times as the benchmark gives sched's actions (phases.mjs dueTimes).
  const due = Math.round(first + i * step);
  const id = `timer-${i}`;
  ids.push(id);
  setTimeout(
    () =>
      post(id, { due }).catch((err) => {
        failed += 1;
        process.stderr.write(`timer floor: ${err.message}\n`);
      }),
    due - Date.now(),
  );
}
tell({ ready: true, ids });
process.on('exit', () => failed && process.stderr.write(`timer floor: ${failed} POSTs failed\n`));
