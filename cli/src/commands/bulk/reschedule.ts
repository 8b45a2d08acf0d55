import type { Command } from 'commander';
import { type BulkFilterOptions, withBulkFlags } from './filter.js';
import { runBulk } from './run.js';

export function configureBulkRescheduleCommand(bulk: Command): void {
  withBulkFlags(
    bulk
      .command('reschedule')
      .description('move every matched pending action by an offset (its delivery window applies)'),
  )
    .requiredOption('--offset <duration>', 'how far to move each due time: 2h, 1d, -30m (earlier)')
    .action(async (o: BulkFilterOptions & { yes?: boolean; wait?: boolean; offset: string }, cmd) =>
      runBulk(cmd, 'reschedule', o, { reschedule: { offset: o.offset } }),
    );
}
