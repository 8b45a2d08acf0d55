import { readFileSync } from 'node:fs';
import type { Chain, ChainCreateBody, ChainListQuery, ChainSummary } from '@sched/sdk';
import { type Command, Option } from 'commander';
import {
  client,
  formatFields,
  formatTable,
  parseNumber,
  print,
  printText,
  UsageError,
  wantsJson,
} from '../runtime.js';

const CHAIN_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
const LIST_COLUMNS = ['id', 'name', 'status', 'current_step', 'created_at'];
const STEP_COLUMNS = [
  'step',
  'name',
  'type',
  'status',
  'outcome',
  'started_at',
  'completed_at',
  'took',
  'error',
];

export function configureChainsCommands(program: Command): void {
  const chains = program.command('chains').description('chains of HTTP calls, approval gates and delays');
  configureChainsCreateCommand(chains);
  configureChainsListCommand(chains);
  configureChainsGetCommand(chains);
  configureChainsCancelCommand(chains);
}

/** Reads a chain definition (the `POST /v1/chains` body) from a file, or stdin with `-`. */
export function readChainFile(path: string, read: (path: string) => string): ChainCreateBody {
  const text = read(path);
  try {
    return JSON.parse(text) as ChainCreateBody;
  } catch (err) {
    throw new UsageError(`${path === '-' ? 'stdin' : path} is not JSON: ${(err as Error).message}`);
  }
}

function configureChainsCreateCommand(chains: Command): void {
  chains
    .command('create')
    .description('start a chain from a JSON definition (the POST /v1/chains body)')
    .requiredOption('--file <file>', 'the chain as JSON (- for stdin)')
    .addHelpText(
      'after',
      '\nExample:\n  $ sched chains create --file chain.json\n  $ cat chain.json | sched chains create --file -',
    )
    .action(async (opts: { file: string }, cmd: Command) => {
      const body = readChainFile(opts.file, (p) => readFileSync(p === '-' ? 0 : p, 'utf8'));
      const chain = await client(cmd).chains.create(body);
      printText(cmd, { data: chain }, describeChain(chain));
    });
}

function configureChainsListCommand(chains: Command): void {
  chains
    .command('list')
    .description('list chains, newest first')
    .addOption(new Option('--status <status>').choices(CHAIN_STATUSES))
    .option('--page <n>', 'page number (default 1)')
    .option('--per-page <n>', 'chains per page, 1-100 (default 20)')
    .option('--all', 'fetch every page')
    .action(
      async (
        opts: { status?: ChainSummary['status']; page?: string; perPage?: string; all?: boolean },
        cmd: Command,
      ) => {
        const query: ChainListQuery = {
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.page ? { page: parseNumber('--page', opts.page) } : {}),
          ...(opts.perPage ? { per_page: parseNumber('--per-page', opts.perPage) } : {}),
        };
        const sched = client(cmd);
        if (opts.all) {
          const data = await sched.chains.listAll(query);
          print(cmd, { data }, { rows: data, columns: LIST_COLUMNS });
          return;
        }
        const page = await sched.chains.list(query);
        print(cmd, page, { rows: page.data, columns: LIST_COLUMNS });
        if (!wantsJson(cmd) && page.meta.last_page > 1) {
          process.stdout.write(
            `page ${page.meta.current_page} of ${page.meta.last_page} (${page.meta.total} chains; --page N or --all for more)\n`,
          );
        }
      },
    );
}

function configureChainsGetCommand(chains: Command): void {
  chains
    .command('get <id>')
    .description('show a chain: each step with its status and timing')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const chain = await client(cmd).chains.get(id);
      printText(cmd, { data: chain }, describeChain(chain));
    });
}

function configureChainsCancelCommand(chains: Command): void {
  chains
    .command('cancel <id>')
    .description('cancel a pending or running chain (steps already run are not rolled back)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const result = await client(cmd).chains.cancel(id);
      printText(cmd, { data: result }, `cancelled chain ${result.id}`);
    });
}

/** How long a step took, e.g. `1.2s`; `-` until it has both ends. */
function took(started: string | null, completed: string | null): string | null {
  if (!started || !completed) return null;
  const ms = Date.parse(completed) - Date.parse(started);
  return ms < 1000 ? `${ms}ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 60_000)}m`;
}

export function describeChain(chain: Chain): string {
  const fields = formatFields([
    ['id', chain.id],
    ['name', chain.name],
    ['status', chain.status],
    ['current_step', chain.current_step],
    ['error_handling', chain.error_handling],
    ['created_at', chain.created_at],
    ['completed_at', chain.completed_at],
  ]);
  const steps = chain.steps.map((s) => ({
    step: s.index,
    name: s.name,
    type: s.type,
    status: s.status,
    outcome: s.outcome,
    started_at: s.started_at,
    completed_at: s.completed_at,
    took: took(s.started_at, s.completed_at),
    error: s.error,
  }));
  return `${fields}\n\n${formatTable(steps, STEP_COLUMNS)}`;
}
