import type { Command } from 'commander';
import { configureOutboxListCommand } from './list.js';
import { configureOutboxShowCommand } from './show.js';

/** `sched outbox <verb>` (admin): messages kept because their channel is not configured. */
export function configureOutboxCommand(program: Command): void {
  const outbox = program
    .command('outbox')
    .description(
      'messages kept because their channel is not configured (the database, or --api: a development server)',
    );
  configureOutboxListCommand(outbox);
  configureOutboxShowCommand(outbox);
}
