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
      // Past 10,000 actions with a destination the server estimates three of the counts: the table says so.
      const rows = data.map((d) =>
        d.counts_exact === false
          ? {
              ...d,
              actions: `about ${d.actions}`,
              scheduled: `about ${d.scheduled}`,
              failed: `about ${d.failed}`,
            }
          : d,
      );
      print(cmd, { data }, { rows, columns: DESTINATION_COLUMNS });
    });
}
