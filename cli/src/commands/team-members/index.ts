import type { Command } from 'commander';
import { configureTeamMembersListCommand } from './list.js';
import { configureTeamMembersCreateCommand } from './create.js';
import { configureTeamMembersGetCommand } from './get.js';
import { configureTeamMembersUpdateCommand } from './update.js';
import { configureTeamMembersDeleteCommand } from './delete.js';

export function configureTeamMembersCommand(program: Command): void {
  const members = program
    .command('team-members')
    .description('people whose ids can be approval recipients (email, SMS, Web Push)');
  configureTeamMembersListCommand(members);
  configureTeamMembersCreateCommand(members);
  configureTeamMembersGetCommand(members);
  configureTeamMembersUpdateCommand(members);
  configureTeamMembersDeleteCommand(members);
}
