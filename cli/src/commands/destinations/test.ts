import { DestinationTestBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, EXIT, parseNumber, parseOptions, printText } from '../../runtime.js';
import { describeTest } from './show.js';

export function configureDestinationsTestCommand(destinations: Command): void {
  destinations
    .command('test <host>')
    .description(
      'send one signed sched.test request to the host now and show what it answered (exit 1 unless 2xx)',
    )
    .option('--path <path>', 'the path (and query) on the host', '/')
    .option('--scheme <scheme>', 'https or http', 'https')
    .option('--port <port>', "the port (default: the scheme's)")
    .action(async (host: string, o: { path: string; scheme: string; port?: string }, cmd: Command) => {
      const body = parseOptions(DestinationTestBody, {
        path: o.path,
        scheme: o.scheme,
        ...(o.port === undefined ? {} : { port: parseNumber('--port', o.port) }),
      });
      const data = await client(cmd).destinations.test(host, body);
      printText(cmd, { data }, describeTest(data));
      if (data.status === null || data.status < 200 || data.status >= 300) process.exitCode = EXIT.failed;
    });
}
