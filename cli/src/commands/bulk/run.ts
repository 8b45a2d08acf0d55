import type { BulkOperationInput } from '@sched/sdk';
import type { Command } from 'commander';
import { client, parseNumber, UsageError, wantsJson } from '../../runtime.js';
import { type BulkFilterOptions, bulkTarget } from './filter.js';
import { dryRunText, finishedText, progressLine } from './progress.js';

/**
 * The flow of every `sched bulk <verb>`: without `--yes` a dry run (count, skipped by status, a sample) and nothing
 * changes; with `--yes` the operation starts and, unless `--no-wait`, is followed to its end (a progress bar on a
 * terminal, one line per change of progress otherwise).
 */
export async function runBulk(
  cmd: Command,
  operation: BulkOperationInput['operation'],
  o: BulkFilterOptions & { yes?: boolean; wait?: boolean },
  extra: Partial<Pick<BulkOperationInput, 'replay' | 'pause' | 'resume' | 'reschedule' | 'run'>> = {},
): Promise<void> {
  const sched = client(cmd);
  const body = { operation, ...bulkTarget(o), ...(o.note ? { note: o.note } : {}), ...extra };
  if (!o.yes) {
    const dry = await sched.bulkOperations.dryRun(body);
    if (wantsJson(cmd)) process.stdout.write(`${JSON.stringify({ data: dry }, null, 2)}\n`);
    else
      process.stdout.write(
        `${dryRunText(dry, `sched bulk ${operation} ... --yes --expect ${dry.matched}`)}\n`,
      );
    return;
  }
  const expected = o.expect === undefined ? undefined : parseNumber('--expect', o.expect);
  if (expected !== undefined && !(Number.isInteger(expected) && expected >= 0))
    throw new UsageError("--expect takes a whole number (the dry run's matched count)");
  const started = await sched.bulkOperations.start({
    ...body,
    ...(expected === undefined ? {} : { expected_matched: expected }),
  });
  if (o.wait === false) {
    if (wantsJson(cmd)) process.stdout.write(`${JSON.stringify({ data: started }, null, 2)}\n`);
    else
      process.stdout.write(
        `started bulk operation ${started.id}: ${operation} of ${started.matched} actions\n`,
      );
    return;
  }
  const tty = process.stdout.isTTY === true && !wantsJson(cmd);
  if (!wantsJson(cmd)) process.stdout.write(`started bulk operation ${started.id}\n`);
  let last = -1;
  const done = await sched.bulkOperations.waitForCompletion(started.id, {
    intervalMs: 500,
    onProgress: (op) => {
      if (wantsJson(cmd) || op.processed === last) return;
      last = op.processed;
      process.stdout.write(tty ? `\r${progressLine(op)}` : `${progressLine(op)}\n`);
    },
  });
  if (tty) process.stdout.write('\n');
  if (wantsJson(cmd)) process.stdout.write(`${JSON.stringify({ data: done }, null, 2)}\n`);
  else process.stdout.write(`${finishedText(done)}\n`);
}
