import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeDestination } from './show.js';

export function configureDestinationsEnableCommand(destinations: Command): void {
  destinations
    .command('enable <destination>')
    .description('close the circuit (a disabled host holds every delivery until this)')
    .action(async (host: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.enable(host);
      printText(cmd, { data }, describeDestination(data));
    });
}
