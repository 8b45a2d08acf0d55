import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeDestination } from './show.js';

export function configureDestinationsResumeCommand(destinations: Command): void {
  destinations
    .command('resume <destination>')
    .description('deliver what was held')
    .action(async (host: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.resume(host);
      printText(cmd, { data }, describeDestination(data));
    });
}
