import { apiContract, GATE_CHANNEL } from '@sched/contract';
import { type Command, Option } from 'commander';
import { client, parseOptions, print } from '../../runtime.js';

const COLUMNS = ['id', 'name', 'status', 'expires_at', 'overdue', 'waiting_on'];

/** `sched approvals pending`: what waits on whom (`GET /v1/approvals`), nearest timeout first. */
export function configureApprovalsPendingCommand(approvals: Command): void {
  approvals
    .command('pending')
    .description('list approvals waiting for answers and who they wait on, nearest timeout first')
    .option('--status <status>', 'action status (default awaiting_response)')
    .option('--recipient <who>', 'an address or contact:<id>')
    .option('--overdue', 'only those past a reminder or within an hour of their timeout')
    .addOption(
      new Option('--channel <channel>', 'only those sent through this channel').choices(
        Object.values(GATE_CHANNEL),
      ),
    )
    .option('--page <n>', 'page number', '1')
    .option('--per-page <n>', 'rows per page (max 100)', '25')
    .action(
      async (
        opts: {
          status?: string;
          recipient?: string;
          overdue?: boolean;
          channel?: string;
          page: string;
          perPage: string;
        },
        cmd: Command,
      ) => {
        const query = parseOptions(apiContract.reminders.pending.query, {
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.recipient ? { recipient: opts.recipient } : {}),
          ...(opts.overdue ? { overdue: 'true' } : {}),
          ...(opts.channel ? { channel: opts.channel } : {}),
          page: opts.page,
          per_page: opts.perPage,
        });
        const page = await client(cmd).pendingApprovals({
          ...query,
          overdue: query.overdue === undefined ? undefined : query.overdue ? 'true' : 'false',
        });
        print(cmd, page, {
          rows: page.data.map((a) => ({
            ...a,
            waiting_on: a.recipients
              .filter((r) => r.status === 'pending' || r.status === 'snoozed')
              .map((r) => r.email)
              .join(', '),
          })),
          columns: COLUMNS,
        });
      },
    );
}
