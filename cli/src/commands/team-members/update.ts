import { TeamMemberUpdate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, print, UsageError } from '../../runtime.js';
import { table } from './show.js';

export function configureTeamMembersUpdateCommand(members: Command): void {
  members
    .command('update <id>')
    .description('change the given fields of a team member')
    .option('--name <name>')
    .option('--email <email>', 'an empty string removes it')
    .option('--phone <phone>', 'an empty string removes it')
    .action(async (id: string, opts: { name?: string; email?: string; phone?: string }, cmd: Command) => {
      if (opts.name === undefined && opts.email === undefined && opts.phone === undefined)
        throw new UsageError('give --name, --email and/or --phone');
      const body = parseOptions(TeamMemberUpdate, {
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        ...(opts.email !== undefined ? { email: opts.email === '' ? null : opts.email } : {}),
        ...(opts.phone !== undefined ? { phone: opts.phone === '' ? null : opts.phone } : {}),
      });
      const data = await client(cmd).teamMembers.update(id, body);
      print(cmd, { data }, table([data]));
    });
}
