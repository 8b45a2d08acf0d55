import type { Command } from 'commander';
import { type BulkFilterOptions, withBulkFlags } from './filter.js';
import { runBulk } from './run.js';

export function configureBulkRunCommand(bulk: Command): void {
  withBulkFlags(
    bulk
      .command('run')
      .description('fire every matched pending webhook action now (windows honoured unless --ignore-window)'),
  )
    .option('--ignore-window', 'fire now even where the delivery window is closed')
    .action(async (o: BulkFilterOptions & { yes?: boolean; wait?: boolean; ignoreWindow?: boolean }, cmd) =>
      runBulk(cmd, 'run', o, o.ignoreWindow ? { run: { ignore_window: true } } : {}),
    );
}
