import type { Destination, DestinationUpdate } from '@sched/sdk';
import type { Command } from 'commander';
import { client, formatFields, print, printText } from '../runtime.js';

const COLUMNS = [
  'host',
  'paused',
  'circuit_state',
  'configured',
  'actions',
  'scheduled',
  'in_flight',
  'failed',
];

function describeDestination(d: Destination): string {
  const flow = d.flow
    ? [
        d.flow.parallelism !== undefined ? `parallelism ${d.flow.parallelism}` : null,
        d.flow.rate !== undefined ? `${d.flow.rate} per ${d.flow.period ?? '1s'}` : null,
      ]
        .filter(Boolean)
        .join(', ')
    : 'none';
  const day = d.stats.last_24h;
  return formatFields([
    ['host', d.host],
    [
      'paused',
      d.pause ? `yes, until ${d.pause.until ?? 'resumed'}${d.pause.note ? ` (${d.pause.note})` : ''}` : 'no',
    ],
    ['flow', flow],
    ['circuit', describeCircuit(d.circuit)],
    ['in_flight', d.in_flight],
    ['waiting', d.waiting],
    [
      'last_24h',
      `${day.attempts} attempts, ${day.failures} failed, p50 ${day.p50_ms ?? '-'} ms, p99 ${day.p99_ms ?? '-'} ms`,
    ],
  ]);
}

function describeCircuit(c: Destination['circuit']): string {
  const settings = c.enabled
    ? `opens at ${c.failure_rate} of ${c.min_requests}+ in ${c.window}, open ${c.open_for}, disabled after ${c.disable_after}`
    : 'off';
  const since = c.opened_at ? `, since ${c.opened_at}` : '';
  const probe = c.next_probe_at ? `, probe at ${c.next_probe_at}` : '';
  return `${c.state}${since}${probe} (${settings})`;
}

const integer = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new Error(`not a whole number: ${v}`);
  return n;
};

const share = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${v}`);
  return n;
};

interface SetOptions {
  parallelism?: number;
  rate?: number;
  period?: '1s' | '1m' | '1h';
  flow: boolean;
  circuit?: 'on' | 'off' | 'defaults';
  minRequests?: number;
  window?: string;
  failureRate?: number;
  openFor?: string;
  disableAfter?: string;
}

/** Only the parts named on the command line: flow options change flow, circuit options the circuit. */
function settingsBody(o: SetOptions): DestinationUpdate {
  const flow = {
    ...(o.parallelism !== undefined ? { parallelism: o.parallelism } : {}),
    ...(o.rate !== undefined ? { rate: o.rate } : {}),
    ...(o.period !== undefined ? { period: o.period } : {}),
  };
  const circuit = {
    ...(o.circuit === 'on' || o.circuit === 'off' ? { enabled: o.circuit === 'on' } : {}),
    ...(o.minRequests !== undefined ? { min_requests: o.minRequests } : {}),
    ...(o.window !== undefined ? { window: o.window } : {}),
    ...(o.failureRate !== undefined ? { failure_rate: o.failureRate } : {}),
    ...(o.openFor !== undefined ? { open_for: o.openFor } : {}),
    ...(o.disableAfter !== undefined ? { disable_after: o.disableAfter } : {}),
  };
  return {
    ...(!o.flow ? { flow: null } : Object.keys(flow).length ? { flow } : {}),
    ...(o.circuit === 'defaults' ? { circuit: null } : Object.keys(circuit).length ? { circuit } : {}),
  };
}

export function configureDestinationsCommands(program: Command): void {
  const destinations = program
    .command('destinations')
    .description(
      'destination hosts: flow control, circuit breaker, pause and resume, recovery after an outage (docs/destinations.md)',
    );
  destinations
    .command('list')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.list();
      print(cmd, { data }, { rows: data, columns: COLUMNS });
    });
  destinations
    .command('get <host>')
    .description('settings, pause, load and the last 24 hours')
    .option('--json', 'print JSON')
    .action(async (host: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.get(host);
      printText(cmd, { data }, describeDestination(data));
    });
  destinations
    .command('set <host>')
    .description(
      'set flow control (at most --parallelism in flight, --rate per --period) and the circuit breaker',
    )
    .option('--parallelism <n>', 'requests in flight at once', integer)
    .option('--rate <n>', 'requests started per period', integer)
    .option('--period <period>', '1s, 1m or 1h')
    .option('--no-flow', 'remove flow control')
    .option('--circuit <mode>', 'on, off, or defaults (forget the settings below)')
    .option('--min-requests <n>', 'attempts in the window before the circuit may open', integer)
    .option('--window <duration>', 'the failure window, e.g. 5m')
    .option('--failure-rate <share>', 'the share of failed attempts that opens it, e.g. 0.7', share)
    .option('--open-for <duration>', 'how long it stays open before a probe, e.g. 1m (doubles to 1h)')
    .option('--disable-after <duration>', 'an outage this long disables the host until enabled, e.g. 5d')
    .option('--json', 'print JSON')
    .action(async (host: string, o: SetOptions, cmd: Command) => {
      if (o.circuit !== undefined && !['on', 'off', 'defaults'].includes(o.circuit))
        throw new Error('--circuit takes on, off or defaults');
      const data = await client(cmd).destinations.update(host, settingsBody(o));
      printText(cmd, { data }, describeDestination(data));
    });
  destinations
    .command('pause <host>')
    .description('hold every delivery to the host (no attempt spent) until resumed or --until')
    .option('--until <time>', 'ISO 8601 with an offset')
    .option('--note <text>', 'why')
    .option('--json', 'print JSON')
    .action(async (host: string, o: { until?: string; note?: string }, cmd: Command) => {
      const data = await client(cmd).destinations.pause(host, {
        ...(o.until ? { until: o.until } : {}),
        ...(o.note ? { note: o.note } : {}),
      });
      printText(cmd, { data }, describeDestination(data));
    });
  destinations
    .command('resume <host>')
    .description('deliver what was held')
    .option('--json', 'print JSON')
    .action(async (host: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.resume(host);
      printText(cmd, { data }, describeDestination(data));
    });
  destinations
    .command('enable <host>')
    .description('close the circuit (a disabled host holds every delivery until this)')
    .option('--json', 'print JSON')
    .action(async (host: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).destinations.enable(host);
      printText(cmd, { data }, describeDestination(data));
    });
  destinations
    .command('recover <host>')
    .description("retry the host's actions that failed since --since (a dry run unless --run)")
    .requiredOption('--since <time>', 'ISO 8601 with an offset')
    .option('--until <time>', 'ISO 8601 with an offset (default: now)')
    .option('--run', 'start the bulk retry instead of counting')
    .option('--json', 'print JSON')
    .action(async (host: string, o: { since: string; until?: string; run?: boolean }, cmd: Command) => {
      const data = await client(cmd).destinations.recover(host, {
        since: o.since,
        ...(o.until ? { until: o.until } : {}),
        dry_run: !o.run,
      });
      const text =
        'dry_run' in data
          ? `would retry ${data.eligible} of ${data.matched} matched actions (run again with --run)`
          : `started bulk operation ${data.id}: retrying ${data.matched} actions`;
      printText(cmd, { data }, text);
    });
}
