import type { Command } from 'commander';
import { configureDestinationsEnableCommand } from './enable.js';
import { configureDestinationsGetCommand } from './get.js';
import { configureDestinationsListCommand } from './list.js';
import { configureDestinationsPauseCommand } from './pause.js';
import { configureDestinationsRecoverCommand } from './recover.js';
import { configureDestinationsResumeCommand } from './resume.js';
import { configureDestinationsSetCommand } from './set.js';
import { configureDestinationsTestCommand } from './test.js';

/** `sched destinations <verb>`: destination hosts (docs/destinations.md). */
export function configureDestinationsCommand(program: Command): void {
  const destinations = program
    .command('destinations')
    .description(
      'destination hosts: flow control, circuit breaker, pause and resume, recovery after an outage, test-send (docs/destinations.md)',
    );
  configureDestinationsListCommand(destinations);
  configureDestinationsGetCommand(destinations);
  configureDestinationsSetCommand(destinations);
  configureDestinationsPauseCommand(destinations);
  configureDestinationsResumeCommand(destinations);
  configureDestinationsEnableCommand(destinations);
  configureDestinationsRecoverCommand(destinations);
  configureDestinationsTestCommand(destinations);
}
