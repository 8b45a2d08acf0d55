import type { Command } from 'commander';
import { type BulkFilterOptions, withBulkFlags } from './filter.js';
import { runBulk } from './run.js';

export function configureBulkCancelCommand(bulk: Command): void {
  withBulkFlags(
    bulk.command('cancel').description('cancel every matched action that can be cancelled'),
  ).action(async (o: BulkFilterOptions & { yes?: boolean; wait?: boolean }, cmd: Command) =>
    runBulk(cmd, 'cancel', o),
  );
}
