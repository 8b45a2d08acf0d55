import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { table } from './show.js';

export function configureTeamMembersGetCommand(members: Command): void {
  members
    .command('get <id>')
    .description('one team member')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).teamMembers.get(id);
      print(cmd, { data }, table([data]));
    });
}
