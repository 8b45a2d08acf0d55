import type { Command } from 'commander';
import { client, print } from '../../runtime.js';

export function configureGrantsListCommand(grants: Command): void {
  grants
    .command('list')
    .description('list the live grants, soonest to end first')
    .action(async (_o: unknown, cmd: Command) => {
      const list = await client(cmd).grants.list();
      print(
        cmd,
        { data: list },
        {
          rows: list,
          columns: ['id', 'key', 'given_by', 'expires_at'],
        },
      );
    });
}
