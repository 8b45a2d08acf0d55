import { ERROR_CLASSES } from '@sched/contract';
import type { BulkOperationInput } from '@sched/sdk';
import { type Command, Option } from 'commander';
import { UsageError } from '../../runtime.js';
import { MODE_FILTERS, STATUS_FILTERS } from '../actions/request.js';

/** The filter flags of `sched bulk <verb>`: the filters of `GET /v1/actions`, one flag each. */
export interface BulkFilterOptions {
  status?: string;
  mode?: string;
  search?: string;
  dedupKey?: string;
  recurring?: boolean;
  oneTime?: boolean;
  destinationHost?: string;
  destinationOrigin?: string;
  lastStatusCode?: string;
  errorClass?: string;
  failedAfter?: string;
  failedBefore?: string;
  createdAfter?: string;
  createdBefore?: string;
  scheduledAfter?: string;
  scheduledBefore?: string;
  ids?: string;
  note?: string;
  /** With --yes: the dry run's count, which the snapshot may not exceed. */
  expect?: string;
}

/** The failed-delivery inbox flags, shared by `sched actions list` and every bulk verb. */
export function withInboxFlags(cmd: Command): Command {
  return cmd
    .option('--destination-host <host>', 'exact host of the request URL, e.g. api.example.com')
    .option(
      '--destination-origin <origin>',
      'origin of the request URL (scheme, host and port), e.g. http://127.0.0.1:9000',
    )
    .option('--last-status-code <code>', 'status of the latest attempt: 503, or a class such as 5xx')
    .addOption(
      new Option('--error-class <class>', 'error class of the latest attempt').choices(ERROR_CLASSES),
    )
    .option('--failed-after <time>', 'failed at or after this ISO 8601 time')
    .option('--failed-before <time>', 'failed before this ISO 8601 time')
    .option('--created-after <time>')
    .option('--created-before <time>')
    .option('--scheduled-after <time>')
    .option('--scheduled-before <time>');
}

/** Adds the filter flags, `--ids`, `--note`, `--yes`, `--no-wait` and `--json` to a bulk verb. */
export function withBulkFlags(cmd: Command): Command {
  return withInboxFlags(
    cmd
      .addOption(new Option('--status <status>').choices(STATUS_FILTERS))
      .addOption(new Option('--mode <mode>').choices(MODE_FILTERS))
      .option('--search <text>', 'in name and description')
      .option('--dedup-key <key>')
      .option('--recurring', 'only recurring actions')
      .option('--one-time', 'only one-time actions'),
  )
    .option('--ids <ids>', 'comma-separated action ids (at most 1,000) instead of a filter')
    .option('--note <text>', "kept on the operation and each action's timeline")
    .option('--yes', 'run it (without: a dry run that prints the count and a sample)')
    .option(
      '--expect <n>',
      "with --yes: refuse to start if more than n actions match now (the dry run's count)",
    )
    .option('--no-wait', 'with --yes: print the started operation and return');
}

type Target = Pick<BulkOperationInput, 'filter' | 'ids'>;
type Filter = NonNullable<BulkOperationInput['filter']>;

/** The inbox flags as `GET /v1/actions` query keys (the same keys as a bulk filter). */
export function inboxQuery(o: BulkFilterOptions): Filter {
  const filter: Filter = {};
  if (o.destinationHost !== undefined) filter.destination_host = o.destinationHost;
  if (o.destinationOrigin !== undefined) filter.destination_origin = o.destinationOrigin;
  if (o.lastStatusCode !== undefined)
    filter.last_status_code = /^\d+$/.test(o.lastStatusCode) ? Number(o.lastStatusCode) : o.lastStatusCode;
  if (o.errorClass !== undefined) filter.error_class = o.errorClass as Filter['error_class'];
  const times = {
    failed_after: o.failedAfter,
    failed_before: o.failedBefore,
    created_after: o.createdAfter,
    created_before: o.createdBefore,
    scheduled_after: o.scheduledAfter,
    scheduled_before: o.scheduledBefore,
  } as const;
  for (const [key, value] of Object.entries(times))
    if (value !== undefined) filter[key as keyof typeof times] = value;
  return filter;
}

/** `--ids` or the filter flags (exactly one way); throws UsageError for both or for a filter with no flag at all. */
export function bulkTarget(o: BulkFilterOptions): Target {
  const filter: NonNullable<BulkOperationInput['filter']> = {};
  const set = <K extends keyof typeof filter>(key: K, value: (typeof filter)[K] | undefined) => {
    if (value !== undefined) filter[key] = value;
  };
  set('status', o.status as (typeof filter)['status']);
  set('mode', o.mode as (typeof filter)['mode']);
  set('search', o.search);
  set('dedup_key', o.dedupKey);
  if (o.recurring && o.oneTime) throw new UsageError('give --recurring or --one-time, not both');
  if (o.recurring) filter.recurring = 'recurring';
  if (o.oneTime) filter.recurring = 'one-time';
  Object.assign(filter, inboxQuery(o));
  const hasFilter = Object.keys(filter).length > 0;
  if (o.ids !== undefined) {
    if (hasFilter) throw new UsageError('give --ids or filter flags, not both');
    const ids = o.ids
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (ids.length === 0) throw new UsageError('--ids needs at least one id');
    return { ids };
  }
  // Every action of the account is a legitimate target, but never by accident: say so with a flag.
  if (!hasFilter) throw new UsageError('give filter flags (e.g. --status failed) or --ids');
  return { filter };
}
