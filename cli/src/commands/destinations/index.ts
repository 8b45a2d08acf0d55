import type { Command } from 'commander';
import { configureDestinationsEnableCommand } from './enable.js';
import { configureDestinationsGetCommand } from './get.js';
import { configureDestinationsListCommand } from './list.js';
import { configureDestinationsPauseCommand } from './pause.js';
import { configureDestinationsRecoverCommand } from './recover.js';
import { configureDestinationsResumeCommand } from './resume.js';
import { configureDestinationsSetCommand } from './set.js';
import { configureDestinationsTestCommand } from './test.js';

/**
 * `sched destinations <verb>`: destinations, each an origin (docs/destinations.md). A `<destination>` is an origin
 * (`http://127.0.0.1:9000`) or a bare host, which means its https origin on the default port.
 */
export function configureDestinationsCommand(program: Command): void {
  const destinations = program
    .command('destinations')
    .description(
      'destinations, each an origin (a bare host is its https origin): flow control, circuit breaker, pause and resume, recovery after an outage, test-send (docs/destinations.md)',
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
