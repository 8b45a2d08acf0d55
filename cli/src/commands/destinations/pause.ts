import { DestinationPauseBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';
import { describeDestination } from './show.js';

export function configureDestinationsPauseCommand(destinations: Command): void {
  destinations
    .command('pause <destination>')
    .description('hold every delivery to the origin (no attempt spent) until resumed or --until')
    .option('--until <time>', 'ISO 8601 with an offset')
    .option('--note <text>', 'why')
    .action(async (host: string, o: { until?: string; note?: string }, cmd: Command) => {
      const data = await client(cmd).destinations.pause(host, parseOptions(DestinationPauseBody, o));
      printText(cmd, { data }, describeDestination(data));
    });
}
