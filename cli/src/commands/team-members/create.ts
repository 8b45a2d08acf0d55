import { TeamMemberCreate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, print, UsageError } from '../../runtime.js';
import { table } from './show.js';

export function configureTeamMembersCreateCommand(members: Command): void {
  members
    .command('create')
    .description('add a person reachable by email or SMS')
    .requiredOption('--name <name>')
    .option('--email <email>')
    .option('--phone <phone>', 'E.164, e.g. +15551234567')
    .action(async (opts: { name: string; email?: string; phone?: string }, cmd: Command) => {
      // Web Push subscriptions come from a browser, through the API; the CLI adds people reachable by mail or SMS.
      if (!opts.email && !opts.phone) throw new UsageError('give --email or --phone (or both)');
      const data = await client(cmd).teamMembers.create(parseOptions(TeamMemberCreate, opts));
      print(cmd, { data }, table([data]));
    });
}
