import type { Command } from 'commander';
import { withDatabase } from '../server-package.js';

export function configureMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .action(async () => {
      // Opening the database applies pending migrations under a lock.
      await withDatabase(async () => undefined);
      process.stdout.write('migrations are current\n');
    });
}
