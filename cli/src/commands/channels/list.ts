import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { table } from './show.js';

export function configureChannelsListCommand(channels: Command): void {
  channels
    .command('list')
    .description('list the Slack and Teams destinations')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).channels.list();
      print(cmd, { data }, table(data));
    });
}
