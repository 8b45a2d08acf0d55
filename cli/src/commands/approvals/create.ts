import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { client, collectOption } from '../../runtime.js';
import { printCreated } from '../actions/show.js';
import {
  COMMENT_POLICIES,
  CONFIRMATION_MODES,
  CREATE_EXAMPLES,
  type CreateApprovalOptions,
  GATE_CHANNELS,
  ON_TIMEOUT,
  approvalSummary,
  buildApprovalInput,
} from './show.js';

export function configureApprovalsCreateCommand(approvals: Command): void {
  approvals
    .command('create')
    .description('schedule an approval request')
    .requiredOption(
      '--to <recipient>',
      'email, E.164 phone, contact:<id>:email|phone, channel:<id> or team member id (repeatable)',
      collectOption,
    )
    .requiredOption('--message <text>', 'the question, at most 5000 characters')
    .option('--in <duration>', 'ask after a wait: 30s, 10m, 2h, 7d, 1w')
    .option('--at <time>', 'ask at an ISO 8601 time (without an offset: UTC)')
    .option('--preset <preset>', 'tomorrow, next_week, next_monday ... next_sunday, 1h, 2h, 4h, 1d, 3d, 1w')
    .option('--timezone <iana>', 'timezone for presets and recurrence')
    .option('--timeout <duration>', 'how long the links answer (default 7d)')
    .addOption(new Option('--on-timeout <what>', 'what a timeout does (default cancel)').choices(ON_TIMEOUT))
    .addOption(
      new Option('--mode <mode>', 'first_response (default), all_required or quorum').choices(
        CONFIRMATION_MODES,
      ),
    )
    .option('--min-approvals <n>', 'quorum: how many confirmations approve (implies --mode quorum)')
    .option('--require <recipient>', 'quorum: a recipient who must confirm (repeatable)', collectOption)
    .option('--exclude-requester <address>', "the requester's address: their answer never counts")
    .option('--remind-every <duration>', 're-send to who has not answered every 1h, 1d...')
    .option('--remind-max <n>', 'at most this many reminders, 1-10 (default 1)')
    .option('--remind-channel <channel>', 'remind only through this channel (repeatable)', collectOption)
    .addOption(
      new Option(
        '--comment <policy>',
        'when a comment is needed: optional (default), required_on_decline, required',
      ).choices(COMMENT_POLICIES),
    )
    .option('--max-snoozes <n>', '0-10 (default 5); 0 hides snooze')
    .option('--buttons <labels>', 'confirm and decline labels, e.g. "Approve,Reject"')
    // Checked in buildApprovalInput: commander's choices() and a collecting parser cannot be combined.
    .option(
      '--channel <channel>',
      `send through ${GATE_CHANNELS.join(', ')} (repeatable); default: email and/or sms by recipient`,
      collectOption,
    )
    .option(
      '--escalate-to <contact>',
      'also ask this email or phone when nobody answers (repeatable)',
      collectOption,
    )
    .option('--escalate-after <hours>', 'hours without an answer before escalating (at least 0.5)')
    .option('--attach <file>', 'attach a file to the message (repeatable)', collectOption)
    .option('--then-url <url>', 'request to run once approved')
    .option('--then-method <method>', 'its method (default POST)')
    .option('--then-body <json>', 'its JSON body')
    .option('--secret <secret>', 'webhook secret that signs that request (16+ printable characters)')
    .option('--callback-url <url>', 'receives reminder.responded, action.executed, action.expired...')
    .option('--name <name>', 'a name (generated when omitted)')
    .option('--description <text>')
    .option('--idempotency-key <key>', 'answer with the live action holding this key instead of creating')
    .addHelpText('after', CREATE_EXAMPLES)
    .action(async (opts: CreateApprovalOptions, cmd: Command) => {
      const input = buildApprovalInput(opts, (path) => readFileSync(path));
      printCreated(cmd, await client(cmd).approvals.create(input), approvalSummary);
    });
}
