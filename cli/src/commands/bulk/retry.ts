import type { Command } from 'commander';
import { type BulkFilterOptions, withBulkFlags } from './filter.js';
import { runBulk } from './run.js';

export function configureBulkRetryCommand(bulk: Command): void {
  withBulkFlags(
    bulk.command('retry').description('retry every matched failed action (same action, attempts again)'),
  ).action(async (o: BulkFilterOptions & { yes?: boolean; wait?: boolean }, cmd: Command) =>
    runBulk(cmd, 'retry', o),
  );
}
