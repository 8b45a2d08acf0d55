import type { Command } from 'commander';
import { configureBulkCancelCommand } from './cancel.js';
import { configureBulkGetCommand } from './get.js';
import { configureBulkListCommand } from './list.js';
import { configureBulkPauseCommand } from './pause.js';
import { configureBulkReplayCommand } from './replay.js';
import { configureBulkResumeCommand } from './resume.js';
import { configureBulkRescheduleCommand } from './reschedule.js';
import { configureBulkRunCommand } from './run-now.js';
import { configureBulkRetryCommand } from './retry.js';
import { configureBulkStopCommand } from './stop.js';

const EXAMPLES = `
Examples:
  $ sched bulk retry --status failed --destination-host api.example.com          # dry run: count and sample
  $ sched bulk retry --status failed --destination-host api.example.com --yes    # run it, with progress
  $ sched bulk cancel --ids 6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11,8a2b9c1e-0d5d-4a63-9a43-7f3e6f1c2a52 --yes --note "duplicates"
  $ sched bulk pause --destination-host api.example.com --status scheduled --for 2h --yes
  $ sched bulk reschedule --status scheduled --destination-host api.example.com --offset 1d --yes
`;

/** `sched bulk <verb>`: one file per verb (cli/src/commands/bulk/). */
export function configureBulkCommand(program: Command): void {
  const bulk = program
    .command('bulk')
    .description('act on many actions at once: a dry run first, then --yes')
    .addHelpText('after', EXAMPLES);
  configureBulkCancelCommand(bulk);
  configureBulkRetryCommand(bulk);
  configureBulkReplayCommand(bulk);
  configureBulkPauseCommand(bulk);
  configureBulkResumeCommand(bulk);
  configureBulkRescheduleCommand(bulk);
  configureBulkRunCommand(bulk);
  configureBulkListCommand(bulk);
  configureBulkGetCommand(bulk);
  configureBulkStopCommand(bulk);
}
