import type { SchedulePreview, SchedulePreviewBody } from '@sched/sdk';
import type { Command } from 'commander';
import { client, formatTable, printText } from '../../runtime.js';
import {
  buildDstPolicy,
  buildRecurrence,
  buildSchedule,
  buildWindow,
  type CreateActionOptions,
  positiveInt,
  type WindowOptions,
  windowFlags,
} from '../actions/request.js';

type PreviewOptions = Pick<
  CreateActionOptions,
  'in' | 'at' | 'preset' | 'timezone' | 'every' | 'times' | 'until' | 'dstGap' | 'dstFold'
> &
  WindowOptions & { count?: string };

/** The body of POST /v1/schedules/preview from the same flags as `sched actions create`. */
export function buildPreviewBody(opts: PreviewOptions): SchedulePreviewBody {
  const body: SchedulePreviewBody = { ...buildSchedule(opts) };
  if (opts.timezone !== undefined) body.timezone = opts.timezone;
  const recurrence = buildRecurrence(opts);
  if (recurrence) body.recurrence = recurrence;
  const dstPolicy = buildDstPolicy(opts);
  if (dstPolicy) body.dst_policy = dstPolicy;
  if (opts.count !== undefined) body.count = positiveInt('--count', opts.count);
  const window = buildWindow(opts);
  if (window) body.delivery_window = window;
  return body;
}

export function describePreview(p: SchedulePreview): string {
  const windowed = p.occurrences.some((o) => o.window !== null);
  const rows = p.occurrences.map((o) => ({
    at: o.at,
    local: o.local,
    offset: o.offset,
    dst: o.dst ?? '',
    window: o.window ? `${o.window}${o.due ? ` (due ${o.due})` : ''}` : '',
  }));
  return [
    `${p.timezone} (tzdata ${p.tzdata})`,
    formatTable(rows, ['at', 'local', 'offset', 'dst', ...(windowed ? ['window'] : [])]),
    ...p.warnings.map((w) => `warning: ${w}`),
  ].join('\n');
}

export function configureSchedulePreviewCommand(schedule: Command): void {
  const preview = schedule
    .command('preview')
    .description('list when a schedule runs (calendar times), with DST gaps and folds and warnings')
    .option('--in <duration>', 'after a wait: 30s, 10m, 2h, 7d, 1w')
    .option('--at <time>', 'at an ISO 8601 time (without an offset: UTC)')
    .option('--preset <preset>', 'tomorrow, next_week, next_monday ... next_sunday, 1h, 2h, 4h, 1d, 3d, 1w')
    .option('--timezone <iana>', 'e.g. America/New_York (default UTC)')
    .option('--every <interval>', 'repeat: 15m, 1h, 1d, 1w, 1M (months)')
    .option('--times <n>', 'with --every: run this many times in all')
    .option('--until <time>', 'with --every: stop after this ISO 8601 time')
    .option('--dst-gap <policy>', 'a wall time in a DST gap: same_offset (default), shift_forward, skip')
    .option('--dst-fold <policy>', 'a wall time in a DST fold: first (default), second, both')
    .option('--count <n>', 'how many runs to list, 1-100 (default 10)')
    .addHelpText(
      'after',
      `
Example:
  $ sched schedule preview --at 2027-03-12T02:30 --timezone America/New_York --every 1d --dst-gap skip
  $ sched schedule preview --at 2027-07-02T14:00Z --every 1d --window 09:00-17:00 --window-timezone America/New_York --window-calendar holidays:US --window-outside skip`,
    )
    .action(async (opts: PreviewOptions, cmd: Command) => {
      const preview = await client(cmd).schedules.preview(buildPreviewBody(opts));
      printText(cmd, { data: preview }, describePreview(preview));
    });
  windowFlags(preview);
}
