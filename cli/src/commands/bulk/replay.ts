import type { Command } from 'commander';
import { type BulkFilterOptions, withBulkFlags } from './filter.js';
import { runBulk } from './run.js';

export function configureBulkReplayCommand(bulk: Command): void {
  withBulkFlags(
    bulk
      .command('replay')
      .description('make a new action from each matched final action (executed, failed, expired, cancelled)'),
  )
    .option('--in <duration>', 'each replay is due after this wait (default: now)')
    .option('--at <time>', 'each replay is due at this ISO 8601 time')
    .action(async (o: BulkFilterOptions & { yes?: boolean; wait?: boolean; in?: string; at?: string }, cmd) =>
      runBulk(cmd, 'replay', o, {
        ...(o.in || o.at
          ? {
              replay: {
                ...(o.in ? { schedule: { wait: o.in } } : {}),
                ...(o.at ? { scheduled_for: o.at } : {}),
              },
            }
          : {}),
      }),
    );
}
