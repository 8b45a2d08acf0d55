import type { Command } from 'commander';
import { UsageError } from '../../runtime.js';
import { type BulkFilterOptions, withBulkFlags } from './filter.js';
import { runBulk } from './run.js';

export function configureBulkPauseCommand(bulk: Command): void {
  withBulkFlags(bulk.command('pause').description('pause every matched scheduled or waiting action'))
    .option('--for <duration>', 'resume by itself after this long (e.g. 2h)')
    .option('--until <time>', 'resume by itself at this ISO 8601 time')
    .option('--indefinite', 'stay paused until resumed')
    .action(
      async (
        o: BulkFilterOptions & {
          yes?: boolean;
          wait?: boolean;
          for?: string;
          until?: string;
          indefinite?: boolean;
        },
        cmd,
      ) => {
        const given = [o.for, o.until, o.indefinite].filter((v) => v !== undefined && v !== false).length;
        if (given !== 1) throw new UsageError('give exactly one of --for, --until or --indefinite');
        const pause = o.for ? { duration: o.for } : o.until ? { until: o.until } : { indefinite: true };
        await runBulk(cmd, 'pause', o, { pause });
      },
    );
}
