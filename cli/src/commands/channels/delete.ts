import type { Command } from 'commander';
import { client, print, wantsJson } from '../../runtime.js';

export function configureChannelsDeleteCommand(channels: Command): void {
  channels
    .command('delete <id>')
    .description('delete a destination')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await client(cmd).channels.delete(id);
      if (wantsJson(cmd)) print(cmd, { deleted: id });
      else process.stdout.write(`deleted ${id}\n`);
    });
}
