import { type Command, Option } from 'commander';
import { type BulkFilterOptions, withBulkFlags } from './filter.js';
import { runBulk } from './run.js';

export function configureBulkResumeCommand(bulk: Command): void {
  withBulkFlags(bulk.command('resume').description('resume every matched paused action'))
    .addOption(
      new Option('--missed <policy>', 'what passed while paused: run_once (default) or skip').choices([
        'run_once',
        'skip',
      ]),
    )
    .action(
      async (o: BulkFilterOptions & { yes?: boolean; wait?: boolean; missed?: 'run_once' | 'skip' }, cmd) =>
        runBulk(cmd, 'resume', o, o.missed ? { resume: { missed: o.missed } } : {}),
    );
}
