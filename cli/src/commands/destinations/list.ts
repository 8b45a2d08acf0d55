import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { DESTINATION_COLUMNS } from './show.js';

export function configureDestinationsListCommand(destinations: Command): void {
  destinations
    .command('list')
    .description(
      "every origin (scheme, host and port) the account's actions are aimed at, with its settings and load",
    )
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.list();
      print(cmd, { data }, { rows: data, columns: DESTINATION_COLUMNS });
    });
}
