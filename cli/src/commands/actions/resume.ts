import { MISSED_POLICIES } from '@sched/contract';
import { type Command, Option } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureActionsResumeCommand(actions: Command): void {
  actions
    .command('resume <id>')
    .description('resume a paused action')
    .addOption(
      new Option(
        '--missed <policy>',
        'what passed while paused: run_once runs it now (default), skip drops it (a one-time action expires)',
      ).choices(MISSED_POLICIES),
    )
    .action(async (id: string, opts: { missed?: (typeof MISSED_POLICIES)[number] }, cmd: Command) => {
      const action = await client(cmd).actions.resume(id, opts.missed ? { missed: opts.missed } : {});
      const next = action.next_attempt_at ? `, next ${action.next_attempt_at}` : '';
      printText(cmd, { data: action }, `resumed ${action.id} (${action.name}): ${action.status}${next}`);
    });
}
