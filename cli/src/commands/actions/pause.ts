import type { PauseBody } from '@sched/sdk';
import type { Command } from 'commander';
import { client, printText, UsageError } from '../../runtime.js';
import { duration, isoTime } from '../actions-request.js';

interface PauseOptions {
  until?: string;
  duration?: string;
  indefinite?: boolean;
  note?: string;
}

/** `--until` / `--duration` / `--indefinite` (the default when none is given): the body of POST /pause. */
export function buildPauseBody(opts: PauseOptions): PauseBody {
  const given = (['until', 'duration', 'indefinite'] as const).filter((k) => opts[k] !== undefined);
  if (given.length > 1) throw new UsageError(`give only one of ${given.map((k) => `--${k}`).join(', ')}`);
  const note = opts.note !== undefined ? { note: opts.note } : {};
  if (opts.until !== undefined) return { until: isoTime('--until', opts.until), ...note };
  if (opts.duration !== undefined) return { duration: duration('--duration', opts.duration), ...note };
  return { indefinite: true, ...note };
}

export function configureActionsPauseCommand(actions: Command): void {
  actions
    .command('pause <id>')
    .description(
      "pause an action (a series as a whole): nothing is sent and an approval's clocks stop until resumed",
    )
    .option('--until <time>', 'resume by itself at this ISO 8601 time')
    .option('--duration <duration>', 'resume by itself after this long: 30m, 2h, 1d')
    .option('--indefinite', 'stay paused until `sched actions resume` (the default)')
    .option('--note <text>', 'why, kept in the timeline')
    .action(async (id: string, opts: PauseOptions, cmd: Command) => {
      const action = await client(cmd).actions.pause(id, buildPauseBody(opts));
      const until = action.pause?.until ? `until ${action.pause.until}` : 'until resumed';
      printText(cmd, { data: action }, `paused ${action.id} (${action.name}) ${until}`);
    });
}
