import type { Command } from 'commander';
import { configureApprovalsCreateCommand } from './create.js';
import { configureApprovalsPendingCommand } from './pending.js';
import { configureApprovalsReassignCommand } from './reassign.js';

export function configureApprovalsCommand(program: Command): void {
  const approvals = program
    .command('approvals')
    .description('ask people to approve, then (optionally) run a request; read them with `actions get`');
  configureApprovalsCreateCommand(approvals);
  configureApprovalsPendingCommand(approvals);
  configureApprovalsReassignCommand(approvals);
}
