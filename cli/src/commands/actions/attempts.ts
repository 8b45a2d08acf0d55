import { AttemptsQuery } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, print, wantsJson } from '../../runtime.js';
import { attemptTable } from './show.js';

export function configureActionsAttemptsCommand(actions: Command): void {
  actions
    .command('attempts <id>')
    .description("an action's delivery attempts, newest first, a page at a time")
    .option('--limit <n>', 'attempts per page, 1-100 (default 50)')
    .option('--before <cursor>', "older than this cursor (a page's meta.next_before)")
    .option('--all', 'every attempt the log holds')
    .action(async (id: string, opts: { limit?: string; before?: string; all?: boolean }, cmd: Command) => {
      const sched = client(cmd);
      if (opts.all) {
        const data = [];
        for await (const a of sched.actions.iterateAttempts(id)) data.push(a);
        print(cmd, { data }, attemptTable(data));
        return;
      }
      const query = parseOptions(AttemptsQuery, { limit: opts.limit, before: opts.before });
      const page = await sched.actions.attempts(id, query);
      print(cmd, page, attemptTable(page.data));
      if (!wantsJson(cmd) && page.meta.next_before) {
        process.stdout.write(`older attempts: --before ${page.meta.next_before} (or --all)\n`);
      }
    });
}
