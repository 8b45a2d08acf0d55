import type { Command } from 'commander';
import { client, print, wantsJson } from '../../runtime.js';

export function configureTeamMembersDeleteCommand(members: Command): void {
  members
    .command('delete <id>')
    .description('remove a team member')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await client(cmd).teamMembers.delete(id);
      if (wantsJson(cmd)) print(cmd, { deleted: id });
      else process.stdout.write(`deleted ${id}\n`);
    });
}
