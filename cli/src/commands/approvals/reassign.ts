import { ReassignBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';

/**
 * `sched approvals reassign <action-id> <recipient-id> --to <who> [--reason <why>]`: hands a recipient who has not
 * answered over to someone else (`POST /v1/actions/{id}/recipients/{recipient_id}/reassign`). Recipient ids are in
 * `sched actions get <action-id>`.
 */
export function configureApprovalsReassignCommand(approvals: Command): void {
  approvals
    .command('reassign <action-id> <recipient-id>')
    .description('hand a recipient who has not answered over to someone else; the old link stops working')
    .requiredOption(
      '--to <recipient>',
      'email, E.164 phone, contact:<id>:email|phone, channel:<id> or team member id',
    )
    .option('--reason <text>', 'why (kept on the timeline and in the audit log), at most 500 characters')
    .addHelpText(
      'after',
      '\nExample:\n  sched approvals reassign 6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11 0b6e5c1d-2f4a-4c8e-9d3b-1a2b3c4d5e6f --to grace@example.com --reason "Ada is on leave"\n',
    )
    .action(
      async (actionId: string, recipientId: string, opts: { to: string; reason?: string }, cmd: Command) => {
        const body = parseOptions(ReassignBody, { to: opts.to, reason: opts.reason });
        const action = await client(cmd).reassign(actionId, recipientId, body);
        const added = action.recipients.find((r) => r.reassigned_from === recipientId);
        printText(
          cmd,
          { data: action },
          `reassigned ${recipientId} to ${added?.email ?? body.to}${added ? ` (recipient ${added.id})` : ''}`,
        );
      },
    );
}
