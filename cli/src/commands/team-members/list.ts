import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { table } from './show.js';

export function configureTeamMembersListCommand(members: Command): void {
  members
    .command('list')
    .description('list the team members')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).teamMembers.list();
      print(cmd, { data }, table(data));
    });
}
