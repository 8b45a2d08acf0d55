import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeDestination } from './show.js';

export function configureDestinationsGetCommand(destinations: Command): void {
  destinations
    .command('get <destination>')
    .description('settings, pause, load and the last 24 hours')
    .action(async (host: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.get(host);
      printText(cmd, { data }, describeDestination(data));
    });
}
