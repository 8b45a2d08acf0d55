import type { Command } from 'commander';
import { configureKeysCreateCommand } from './create.js';
import { configureKeysListCommand } from './list.js';
import { configureKeysRevokeCommand } from './revoke.js';
import { configureKeysRotateCommand } from './rotate.js';

/** `sched keys <verb>`: the account's API keys over the API (the key in use needs the `admin` scope). */
export function configureKeysCommand(program: Command): void {
  const keys = program
    .command('keys')
    .description("manage this account's API keys over the API (needs a key with the admin scope)");
  configureKeysCreateCommand(keys);
  configureKeysListCommand(keys);
  configureKeysRevokeCommand(keys);
  configureKeysRotateCommand(keys);
}
