import type { Command } from 'commander';
import { configureSchedulePreviewCommand } from './preview.js';

/** `sched schedule <verb>`: schedules, before anything is created. */
export function configureScheduleCommand(program: Command): void {
  const schedule = program.command('schedule').description('schedules, before anything is created');
  configureSchedulePreviewCommand(schedule);
}
