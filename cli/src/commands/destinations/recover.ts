import { DestinationRecoverBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';

export function configureDestinationsRecoverCommand(destinations: Command): void {
  destinations
    .command('recover <destination>')
    .description(
      "retry the origin's actions (a bare host: every origin of it) that failed since --since (a dry run unless --run)",
    )
    .requiredOption('--since <time>', 'ISO 8601 with an offset')
    .option('--until <time>', 'ISO 8601 with an offset (default: now)')
    .option('--run', 'start the bulk retry instead of counting')
    .action(async (host: string, o: { since: string; until?: string; run?: boolean }, cmd: Command) => {
      const body = parseOptions(DestinationRecoverBody, {
        since: o.since,
        ...(o.until ? { until: o.until } : {}),
        dry_run: !o.run,
      });
      const data = await client(cmd).destinations.recover(host, body);
      const text =
        'dry_run' in data
          ? `would retry ${data.eligible} of ${data.matched} matched actions (run again with --run)`
          : `started bulk operation ${data.id}: retrying ${data.matched} actions`;
      printText(cmd, { data }, text);
    });
}
