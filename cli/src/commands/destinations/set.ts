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
}

/** The body of PATCH /v1/destinations/{host} from the flags, checked by the contract's schema. */
export function buildDestinationUpdate(o: SetOptions): DestinationUpdate {
  if (!o.flow) return parseOptions(DestinationUpdate, { flow: null });
  return parseOptions(DestinationUpdate, {
    flow: {
      ...(o.parallelism !== undefined ? { parallelism: Number(o.parallelism) } : {}),
      ...(o.rate !== undefined ? { rate: Number(o.rate) } : {}),
      ...(o.period !== undefined ? { period: o.period } : {}),
    },
  });
}

export function configureDestinationsSetCommand(destinations: Command): void {
  destinations
    .command('set <host>')
    .description('set flow control: at most --parallelism in flight, --rate per --period')
    .option('--parallelism <n>', 'requests in flight at once')
    .option('--rate <n>', 'requests started per period')
    .option('--period <period>', '1s, 1m or 1h')
    .option('--no-flow', 'remove flow control')
    .action(async (host: string, o: SetOptions, cmd: Command) => {
      const data = await client(cmd).destinations.update(host, buildDestinationUpdate(o));
      printText(cmd, { data }, describeDestination(data));
    });
}
