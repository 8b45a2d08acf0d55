import type { ReplayBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, collectOption, printText, UsageError } from '../../runtime.js';
import { parseHeaders } from './request.js';

/** `sched actions replay <id>`: a new action from a final one's definition, optionally with a new time or body. */
export function configureActionsReplayCommand(actions: Command): void {
  actions
    .command('replay <id>')
    .description('make a NEW action from a finished one (executed, failed, expired, cancelled)')
    .option('--in <duration>', 'due after this wait (default: now)')
    .option('--at <time>', 'due at this ISO 8601 time')
    .option('--timezone <tz>', 'IANA timezone of the replay (for --in presets and its recurrence)')
    .option('--header <header>', "replace the request headers: 'Name: value' (repeatable)", collectOption)
    .option('--body <json>', 'replace the JSON request body')
    .action(
      async (
        id: string,
        o: { in?: string; at?: string; timezone?: string; header?: string[]; body?: string },
        cmd: Command,
      ) => {
        const overrides: ReplayBody = {
          ...(o.in ? { schedule: { wait: o.in } } : {}),
          ...(o.at ? { scheduled_for: o.at } : {}),
          ...(o.timezone ? { timezone: o.timezone } : {}),
        };
        if (o.header?.length || o.body !== undefined) {
          overrides.request = {
            ...(o.header?.length ? { headers: parseHeaders(o.header) } : {}),
            ...(o.body !== undefined ? { body: parseJson(o.body) } : {}),
          };
        }
        const replay = await client(cmd).actions.replay(id, overrides);
        printText(
          cmd,
          { data: replay },
          `replayed ${id} as ${replay.id} (${replay.name}): ${replay.status}, due ${replay.scheduled_for}`,
        );
      },
    );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--body must be JSON');
  }
}
