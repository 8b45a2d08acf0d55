import type { TeamMember } from '@sched/sdk';
import type { Command } from 'commander';
import { client, print, UsageError, wantsJson } from '../runtime.js';

const COLUMNS = ['id', 'name', 'email', 'phone', 'push', 'created_at'];
const table = (rows: TeamMember[]) => ({
  rows: rows.map((m) => ({ ...m, push: m.push_subscriptions.length })),
  columns: COLUMNS,
});

export function configureTeamMembersCommands(program: Command): void {
  const members = program
    .command('team-members')
    .description('people whose ids can be approval recipients (email, SMS, Web Push)');
  members.command('list').action(async (_o: unknown, cmd: Command) => {
    const data = await client(cmd).teamMembers.list();
    print(cmd, { data }, table(data));
  });
  members
    .command('create')
    .requiredOption('--name <name>')
    .option('--email <email>')
    .option('--phone <phone>', 'E.164, e.g. +15551234567')
    .action(async (opts: { name: string; email?: string; phone?: string }, cmd: Command) => {
      // Web Push subscriptions come from a browser, through the API; the CLI adds people reachable by mail or SMS.
      if (!opts.email && !opts.phone) throw new UsageError('give --email or --phone (or both)');
      const data = await client(cmd).teamMembers.create({
        name: opts.name,
        ...(opts.email ? { email: opts.email } : {}),
        ...(opts.phone ? { phone: opts.phone } : {}),
      });
      print(cmd, { data }, table([data]));
    });
  members.command('get <id>').action(async (id: string, _o: unknown, cmd: Command) => {
    const data = await client(cmd).teamMembers.get(id);
    print(cmd, { data }, table([data]));
  });
  members
    .command('update <id>')
    .option('--name <name>')
    .option('--email <email>', 'an empty string removes it')
    .option('--phone <phone>', 'an empty string removes it')
    .action(async (id: string, opts: { name?: string; email?: string; phone?: string }, cmd: Command) => {
      if (opts.name === undefined && opts.email === undefined && opts.phone === undefined)
        throw new UsageError('give --name, --email and/or --phone');
      const data = await client(cmd).teamMembers.update(id, {
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        ...(opts.email !== undefined ? { email: opts.email === '' ? null : opts.email } : {}),
        ...(opts.phone !== undefined ? { phone: opts.phone === '' ? null : opts.phone } : {}),
      });
      print(cmd, { data }, table([data]));
    });
  members.command('delete <id>').action(async (id: string, _o: unknown, cmd: Command) => {
    await client(cmd).teamMembers.delete(id);
    if (wantsJson(cmd)) print(cmd, { deleted: id });
    else process.stdout.write(`deleted ${id}\n`);
  });
}
