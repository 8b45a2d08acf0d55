import type { AlertRuleCreateBody, AlertRuleUpdateBody } from '@sched/sdk';
import type { Command } from 'commander';
import { collectOption, UsageError } from '../../runtime.js';

/** The options `sched alerts create` and `update` share, as commander hands them over. */
export interface RuleOptions {
  name?: string;
  event?: string[];
  email?: string[];
  sms?: string[];
  slack?: string[];
  teams?: string[];
  webhook?: string[];
  secret?: string;
  mode?: string;
  host?: string;
  origin?: string;
  dedupKey?: string;
  threshold?: string;
  groupWait?: string;
  repeatEvery?: string;
  lateAfter?: string;
  disabled?: boolean;
  enabled?: boolean;
  clear?: string[];
}

/** Fields `--clear` may set to null (their defaults apply again). */
const CLEARABLE = ['filter', 'threshold', 'group_wait', 'repeat_every', 'late_after'] as const;

/** `--threshold 5/10m`: at least 5 events within 10 minutes. */
export function parseThreshold(text: string): { count: number; window: string } {
  const m = /^(\d+)\/(\S+)$/.exec(text);
  if (!m) throw new UsageError(`--threshold must be <count>/<window>, e.g. 5/10m (got ${text})`);
  return { count: Number(m[1]), window: m[2]! };
}

/** The channels the options name, in a stable order: email, sms, slack, teams, webhook. */
function channelsOf(o: RuleOptions): AlertRuleCreateBody['channels'] | undefined {
  const channels: AlertRuleCreateBody['channels'] = [
    ...(o.email ?? []).map((to) => ({ type: 'email' as const, to })),
    ...(o.sms ?? []).map((to) => ({ type: 'sms' as const, to })),
    ...(o.slack ?? []).map((channel) => ({ type: 'slack' as const, channel })),
    ...(o.teams ?? []).map((channel) => ({ type: 'teams' as const, channel })),
    ...(o.webhook ?? []).map((url) => ({
      type: 'webhook' as const,
      url,
      ...(o.secret !== undefined ? { secret: o.secret } : {}),
    })),
  ];
  if (o.secret !== undefined && !o.webhook?.length)
    throw new UsageError('--secret signs a --webhook: give one');
  return channels.length > 0 ? channels : undefined;
}

function filterOf(o: RuleOptions): AlertRuleCreateBody['filter'] | undefined {
  const filter = {
    ...(o.mode !== undefined ? { mode: o.mode as 'webhook' | 'approval' } : {}),
    ...(o.host !== undefined ? { destination_host: o.host } : {}),
    ...(o.origin !== undefined ? { destination_origin: o.origin } : {}),
    ...(o.dedupKey !== undefined ? { dedup_key: o.dedupKey } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/** The fields the options set: for a create (checked whole by the contract's schema) or an update. */
function fieldsOf(o: RuleOptions): AlertRuleUpdateBody {
  const channels = channelsOf(o);
  const filter = filterOf(o);
  return {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.event?.length ? { events: o.event as AlertRuleCreateBody['events'] } : {}),
    ...(channels ? { channels } : {}),
    ...(filter ? { filter } : {}),
    ...(o.threshold !== undefined ? { threshold: parseThreshold(o.threshold) } : {}),
    ...(o.groupWait !== undefined ? { group_wait: o.groupWait } : {}),
    ...(o.repeatEvery !== undefined ? { repeat_every: o.repeatEvery } : {}),
    ...(o.lateAfter !== undefined ? { late_after: o.lateAfter } : {}),
    ...(o.disabled ? { enabled: false } : {}),
    ...(o.enabled ? { enabled: true } : {}),
  };
}

/** `sched alerts create`: the body of `POST /v1/alert-rules`. */
export function createBody(o: RuleOptions): AlertRuleCreateBody {
  return fieldsOf(o) as AlertRuleCreateBody;
}

/** `sched alerts update`: only what the options name; `--clear threshold` sends `threshold: null`. */
export function updateBody(o: RuleOptions): AlertRuleUpdateBody {
  const body: AlertRuleUpdateBody = fieldsOf(o);
  for (const field of o.clear ?? []) {
    if (!(CLEARABLE as readonly string[]).includes(field))
      throw new UsageError(`--clear takes one of ${CLEARABLE.join(', ')} (got ${field})`);
    Object.assign(body, { [field]: null });
  }
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give an option');
  return body;
}

/** The options `create` and `update` share: what to watch, where to tell, and the timing. */
export function ruleOptions(cmd: Command): Command {
  return cmd
    .option(
      '--event <type>',
      'an event to watch (repeatable): action.failed, approval.expired, …',
      collectOption,
    )
    .option('--email <address>', 'send to this address (repeatable)', collectOption)
    .option('--sms <phone>', 'send to this E.164 number (repeatable)', collectOption)
    .option('--slack <channel-id>', 'post to this Slack channel resource (repeatable)', collectOption)
    .option('--teams <channel-id>', 'post to this Teams channel resource (repeatable)', collectOption)
    .option('--webhook <url>', 'POST a signed JSON body here (repeatable)', collectOption)
    .option('--secret <secret>', 'signs the --webhook channels')
    .option('--mode <mode>', 'only events about webhook or approval actions')
    .option('--host <host>', 'only events about this destination host (every origin of it)')
    .option('--origin <origin>', 'only events about this destination origin, e.g. http://127.0.0.1:9000')
    .option('--dedup-key <key>', 'only events about actions with this dedup key')
    .option('--threshold <count/window>', 'alert only at count events within window, e.g. 5/10m')
    .option('--group-wait <duration>', 'events within this go out as one message (default 2m)')
    .option('--repeat-every <duration>', 'at most one message per this while it goes on (default 1h)')
    .option('--late-after <duration>', 'with delivery.late: how late counts (default 1m)')
    .option('--disabled', 'the rule matches nothing until enabled');
}
