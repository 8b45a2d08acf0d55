import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { table } from './show.js';

export function configureChannelsGetCommand(channels: Command): void {
  channels
    .command('get <id>')
    .description('one destination')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).channels.get(id);
      print(cmd, { data }, table([data]));
    });
}
