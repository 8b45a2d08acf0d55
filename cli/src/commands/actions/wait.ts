import { ActionWaitQuery } from '@sched/contract';
import type { Command } from 'commander';
import { client, EXIT, parseOptions, printText } from '../../runtime.js';
import { describeAction } from './show.js';

/** Exit code of a wait whose timeout came first: the action is printed all the same. */
const TIMED_OUT_EXIT = 3;

export function configureActionsWaitCommand(actions: Command): void {
  actions
    .command('wait <id>')
    .description(
      'hold until an approval is decided (or the action ended, --for terminal), at most --timeout seconds; exit 3 when the timeout came first',
    )
    .option('--for <what>', 'decision (default) or terminal')
    .option('--timeout <seconds>', 'seconds to hold, 1-60 (default 30)')
    .action(async (id: string, opts: { for?: string; timeout?: string }, cmd: Command) => {
      const query = parseOptions(ActionWaitQuery, { for: opts.for, timeout: opts.timeout });
      const held = await client(cmd).actions.hold(id, query);
      printText(
        cmd,
        { data: held.action, meta: { timed_out: held.timedOut } },
        `${held.timedOut ? 'timed out; ' : ''}${describeAction(held.action, new Date())}`,
      );
      process.exitCode = held.timedOut ? TIMED_OUT_EXIT : EXIT.ok;
    });
}
