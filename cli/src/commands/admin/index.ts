import type { Command } from 'commander';
import { configureAdminKeysCreateCommand } from './keys/create.js';
import { configureAdminKeysListCommand } from './keys/list.js';
import { configureAdminKeysRevokeCommand } from './keys/revoke.js';

/**
 * `sched admin keys <verb>`: API keys of any account, through the database (no API key needed; where the server
 * package and the database are). `sched keys` does the same for one's own account over the API.
 */
export function configureAdminCommand(program: Command): void {
  const admin = program.command('admin').description('operator verbs that talk to the database directly');
  const keys = admin.command('keys').description("any account's API keys, through the database");
  configureAdminKeysCreateCommand(keys);
  configureAdminKeysListCommand(keys);
  configureAdminKeysRevokeCommand(keys);
}
