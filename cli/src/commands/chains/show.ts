import { ChainStatus } from '@sched/contract';
import type { Chain, ChainCreateBody } from '@sched/sdk';
import { formatFields, formatTable, UsageError } from '../../runtime.js';

export const CHAIN_STATUSES = ChainStatus.options;
export const LIST_COLUMNS = ['id', 'name', 'status', 'current_step', 'created_at'];
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

/** Reads a chain definition (the `POST /v1/chains` body) from a file, or stdin with `-`. */
export function readChainFile(path: string, read: (path: string) => string): ChainCreateBody {
  const text = read(path);
  try {
    return JSON.parse(text) as ChainCreateBody;
  } catch (err) {
    throw new UsageError(`${path === '-' ? 'stdin' : path} is not JSON: ${(err as Error).message}`);
  }
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
