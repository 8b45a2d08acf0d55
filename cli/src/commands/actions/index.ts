import type { Command } from 'commander';
import { configureActionsAttemptsCommand } from './attempts.js';
import { configureActionsCancelCommand } from './cancel.js';
import { configureActionsCreateCommand } from './create.js';
import { configureActionsGetCommand } from './get.js';
import { configureActionsListCommand } from './list.js';
import { configureActionsReplayCommand } from './replay.js';
import { configureActionsRetryCommand } from './retry.js';
import { configureActionsWaitCommand } from './wait.js';
import { configureActionsWatchCommand } from './watch.js';
import { configureActionsPauseCommand } from './pause.js';
import { configureActionsResumeCommand } from './resume.js';
import { configureActionsRescheduleCommand } from './reschedule.js';
import { configureActionsRunCommand } from './run.js';

export function configureActionsCommand(program: Command): void {
  const actions = program.command('actions').description('scheduled webhook actions');
  configureActionsCreateCommand(actions);
  configureActionsListCommand(actions);
  configureActionsGetCommand(actions);
  configureActionsAttemptsCommand(actions);
  configureActionsCancelCommand(actions);
  configureActionsRetryCommand(actions);
  configureActionsReplayCommand(actions);
  configureActionsWatchCommand(actions);
  configureActionsWaitCommand(actions);
  configureActionsPauseCommand(actions);
  configureActionsResumeCommand(actions);
  configureActionsRescheduleCommand(actions);
  configureActionsRunCommand(actions);
}
