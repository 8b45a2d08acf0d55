import { DestinationUpdate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';
import { describeDestination } from './show.js';

interface SetOptions {
  parallelism?: string;
  rate?: string;
  period?: string;
  /** False with `--no-flow`. */
  flow: boolean;
  circuit?: string;
  minRequests?: string;
  window?: string;
  failureRate?: string;
  openFor?: string;
  disableAfter?: string;
}

/**
 * The body of PUT /v1/destinations/{host} from the flags, checked by the contract's schema: only the parts named
 * on the command line (flow options change flow, circuit options the circuit; the other part keeps its value).
 */
export function buildDestinationUpdate(o: SetOptions): DestinationUpdate {
  const flow = {
    ...(o.parallelism !== undefined ? { parallelism: Number(o.parallelism) } : {}),
    ...(o.rate !== undefined ? { rate: Number(o.rate) } : {}),
    ...(o.period !== undefined ? { period: o.period } : {}),
  };
  if (o.circuit !== undefined && !['on', 'off', 'defaults'].includes(o.circuit))
    throw new Error('--circuit takes on, off or defaults');
  const circuit = {
    ...(o.circuit === 'on' || o.circuit === 'off' ? { enabled: o.circuit === 'on' } : {}),
    ...(o.minRequests !== undefined ? { min_requests: Number(o.minRequests) } : {}),
    ...(o.window !== undefined ? { window: o.window } : {}),
    ...(o.failureRate !== undefined ? { failure_rate: Number(o.failureRate) } : {}),
    ...(o.openFor !== undefined ? { open_for: o.openFor } : {}),
    ...(o.disableAfter !== undefined ? { disable_after: o.disableAfter } : {}),
  };
  const circuitPart =
    o.circuit === 'defaults' ? { circuit: null } : Object.keys(circuit).length ? { circuit } : {};
  // Without any option, `set` still means flow (`flow: {}`, as it always did): no limit.
  const flowPart = !o.flow
    ? { flow: null }
    : Object.keys(flow).length || !Object.keys(circuitPart).length
      ? { flow }
      : {};
  return parseOptions(DestinationUpdate, { ...flowPart, ...circuitPart });
}

export function configureDestinationsSetCommand(destinations: Command): void {
  destinations
    .command('set <destination>')
    .description(
      'set flow control (at most --parallelism in flight, --rate per --period) and the circuit breaker',
    )
    .option('--parallelism <n>', 'requests in flight at once')
    .option('--rate <n>', 'requests started per period')
    .option('--period <period>', '1s, 1m or 1h')
    .option('--no-flow', 'remove flow control')
    .option('--circuit <mode>', 'on, off, or defaults (forget the circuit settings)')
    .option('--min-requests <n>', 'attempts in the window before the circuit may open')
    .option('--window <duration>', 'the failure window, e.g. 5m')
    .option('--failure-rate <share>', 'the share of failed attempts that opens it, e.g. 0.7')
    .option('--open-for <duration>', 'how long it stays open before a probe, e.g. 1m (doubles to 1h)')
    .option('--disable-after <duration>', 'an outage this long disables the host until enabled, e.g. 5d')
    .action(async (host: string, o: SetOptions, cmd: Command) => {
      const data = await client(cmd).destinations.update(host, buildDestinationUpdate(o));
      printText(cmd, { data }, describeDestination(data));
    });
}
