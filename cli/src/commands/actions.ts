import type { Command } from 'commander';
import { configureActionsCancelCommand } from './actions/cancel.js';
import { configureActionsCreateCommand } from './actions/create.js';
import { configureActionsGetCommand } from './actions/get.js';
import { configureActionsListCommand } from './actions/list.js';
import { configureActionsReplayCommand } from './actions/replay.js';
import { configureActionsRetryCommand } from './actions/retry.js';
import { configureActionsWatchCommand } from './actions-watch.js';
import { configureActionsPauseCommand } from './actions/pause.js';
import { configureActionsResumeCommand } from './actions/resume.js';

export function configureActionsCommands(program: Command): void {
  const actions = program.command('actions').description('scheduled webhook actions');
  configureActionsCreateCommand(actions);
  configureActionsListCommand(actions);
  configureActionsGetCommand(actions);
  configureActionsCancelCommand(actions);
  configureActionsRetryCommand(actions);
  configureActionsReplayCommand(actions);
  configureActionsWatchCommand(actions);
  configureActionsPauseCommand(actions);
  configureActionsResumeCommand(actions);
}

// The renderers moved to actions/show.ts; other nouns (approvals) and tests import them from here too.
export { printCreated, createdSummary, describeAction, relativeTime } from './actions/show.js';
