import type { Command } from 'commander';
import { configureTemplatesCreateCommand } from './create.js';
import { configureTemplatesListCommand } from './list.js';
import { configureTemplatesGetCommand } from './get.js';
import { configureTemplatesUpdateCommand } from './update.js';
import { configureTemplatesDeleteCommand } from './delete.js';
import { configureTemplatesRegenerateTokenCommand } from './regenerate-token.js';
import { configureTemplatesToggleCommand } from './toggle.js';
import { configureTemplatesLimitsCommand } from './limits.js';

export function configureTemplatesCommand(program: Command): void {
  const templates = program
    .command('templates')
    .description('saved actions and chains with {{placeholders}}, fired by public trigger URLs');
  configureTemplatesCreateCommand(templates);
  configureTemplatesListCommand(templates);
  configureTemplatesGetCommand(templates);
  configureTemplatesUpdateCommand(templates);
  configureTemplatesDeleteCommand(templates);
  configureTemplatesRegenerateTokenCommand(templates);
  configureTemplatesToggleCommand(templates);
  configureTemplatesLimitsCommand(templates);
}
