import type { Command } from 'commander';
import { configureGrantsListCommand } from './list.js';
import { configureGrantsRevokeCommand } from './revoke.js';

/** `sched grants <verb>`: standing grants approvers gave with a confirm (`gate.grant`). */
export function configureGrantsCommand(program: Command): void {
  const grants = program
    .command('grants')
    .description('standing grants: approvals with the same key confirmed at once until they end');
  configureGrantsListCommand(grants);
  configureGrantsRevokeCommand(grants);
}
