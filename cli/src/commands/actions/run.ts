import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

/** `sched actions run <id>`: a pending webhook action fired now (at its window's next opening unless told). */
export function configureActionsRunCommand(actions: Command): void {
  actions
    .command('run <id>')
    .description('fire a pending webhook action now; its delivery window is honoured unless --ignore-window')
    .option('--ignore-window', 'fire now even when the delivery window is closed')
    .action(async (id: string, o: { ignoreWindow?: boolean }, cmd: Command) => {
      const action = await client(cmd).actions.run(id, { ignore_window: o.ignoreWindow === true });
      const when = action.deferred_by_window
        ? `at its window's next opening, ${action.deferred_by_window.to}`
        : 'now';
      printText(cmd, { data: action }, `running ${action.id} (${action.name}) ${when}`);
    });
}
