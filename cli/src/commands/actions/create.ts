import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { client, collectOption, UsageError } from '../../runtime.js';
import {
  buildCreateBody,
  type CreateActionOptions,
  METHODS,
  ON_CREATE_RULES,
  RETRY_STRATEGIES,
  windowFlags,
} from './request.js';
import { createFromFile } from './create-from-file.js';
import { createdSummary, printCreated } from './show.js';

/** Two weeks from today at 09:00 UTC: an example time within every plan's schedule horizon (Free: 30 days). */
const EXAMPLE_AT = `${new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10)}T09:00:00Z`;

const CREATE_EXAMPLES = `
Examples:
  $ sched actions create --url https://example.com/hook --in 10m --body '{"a":1}'
  $ sched actions create --url https://example.com/hook --preset tomorrow --timezone Europe/Berlin
  $ sched actions create --url https://example.com/hook --at ${EXAMPLE_AT} --every 1d --times 5
  $ sched actions create --url https://example.com/hook --in 1h --header 'Authorization: Bearer x' --json`;

export function configureActionsCreateCommand(actions: Command): void {
  const create = actions
    .command('create')
    .description('schedule an HTTP request (or, with --from-file, up to 1,000 actions in one batch)')
    .option('--url <url>', 'where to send the request (required without --from-file)')
    .option('--from-file <file>', 'NDJSON, one create body per line (- for stdin): all created or none')
    .option('--in <duration>', 'send after a wait: 30s, 10m, 2h, 7d, 1w')
    .option('--at <time>', 'send at an ISO 8601 time (without an offset: UTC)')
    .option('--preset <preset>', 'tomorrow, next_week, next_monday ... next_sunday, 1h, 2h, 4h, 1d, 3d, 1w')
    .option('--method <method>', `HTTP method: ${METHODS.join(', ')} (default POST)`)
    .option('--header <header>', "request header 'Name: value' (repeatable)", collectOption)
    .option('--body <json>', 'JSON request body')
    .option('--body-file <file>', 'read the JSON request body from a file (- for stdin)')
    .option('--name <name>', 'a name (generated when omitted)')
    .option('--description <text>')
    .option('--timezone <iana>', 'timezone for presets and --every, e.g. Europe/Berlin')
    .option('--idempotency-key <key>', 'answer with the live action holding this key instead of creating')
    .option('--dedup-key <key>', 'dedup key (repeatable)', collectOption)
    .addOption(
      new Option('--on-create <rule>', 'when a live action shares a dedup key').choices(ON_CREATE_RULES),
    )
    .option('--max-attempts <n>', 'delivery attempts including the first')
    .addOption(new Option('--retry-strategy <strategy>').choices(RETRY_STRATEGIES))
    .option('--secret <secret>', 'webhook secret that signs the request (16+ printable characters)')
    .option('--callback-url <url>', 'receives action.executed and action.failed events')
    .option('--every <interval>', 'repeat: 15m, 1h, 1d, 1w, 1M (months)')
    .option('--times <n>', 'with --every: run this many times in all')
    .option('--until <time>', 'with --every: stop after this ISO 8601 time')
    .option(
      '--dst-gap <policy>',
      'with --every: a wall time in a DST gap: same_offset (default), shift_forward, skip',
    )
    .option('--dst-fold <policy>', 'with --every: a wall time in a DST fold: first (default), second, both')
    .addHelpText('after', CREATE_EXAMPLES)
    .action(async (opts: CreateActionOptions & { fromFile?: string }, cmd: Command) => {
      if (opts.fromFile !== undefined) return createFromFile(cmd, opts.fromFile);
      if (opts.url === undefined) throw new UsageError("required option '--url <url>' not specified");
      const body = buildCreateBody(opts, (path) => readFileSync(path === '-' ? 0 : path, 'utf8'));
      printCreated(cmd, await client(cmd).actions.create(body), createdSummary);
    });
  windowFlags(create);
}
