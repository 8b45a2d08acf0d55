import { RescheduleBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';
import { buildSchedule } from './request.js';

/** `sched actions reschedule <id>`: a pending action moved to a new time, by the create's rules. */
export function configureActionsRescheduleCommand(actions: Command): void {
  actions
    .command('reschedule <id>')
    .description(
      'move a pending action (scheduled, resolved or paused) to a new time; its delivery window applies',
    )
    .option('--in <duration>', 'due after this wait: 30s, 10m, 2h, 7d, 1w')
    .option('--at <time>', 'due at this ISO 8601 time (without an offset: UTC)')
    .option('--preset <preset>', 'tomorrow, next_week, next_monday ... next_sunday, 1h, 2h, 4h, 1d, 3d, 1w')
    .option('--timezone <iana>', 'timezone for presets (default the action’s)')
    .action(
      async (
        id: string,
        o: { in?: string; at?: string; preset?: string; timezone?: string },
        cmd: Command,
      ) => {
        const body = parseOptions(RescheduleBody, {
          ...buildSchedule(o),
          ...(o.timezone !== undefined ? { timezone: o.timezone } : {}),
        });
        const action = await client(cmd).actions.reschedule(id, body);
        printText(
          cmd,
          { data: action },
          `rescheduled ${action.id} (${action.name}): ${action.status}, due ${action.next_attempt_at ?? action.scheduled_for}`,
        );
      },
    );
}
