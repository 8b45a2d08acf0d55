import type { SchedClient } from '@sched/sdk';
import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { cancelTarget } from '../actions-request.js';

export function configureActionsCancelCommand(actions: Command): void {
  actions
    .command('cancel [id]')
    .description('cancel an action by id, by idempotency key, or every live action sharing a dedup key')
    .option('--idempotency-key <key>', 'cancel the live action holding this idempotency key')
    .option('--dedup-key <key>', 'cancel every live action sharing this dedup key')
    .action(
      async (id: string | undefined, opts: { idempotencyKey?: string; dedupKey?: string }, cmd: Command) => {
        const target = cancelTarget(id, opts);
        await cancel(client(cmd), target, cmd);
      },
    );
}

async function cancel(sched: SchedClient, target: ReturnType<typeof cancelTarget>, cmd: Command) {
  if (target.by === 'dedup_key') {
    const result = await sched.actions.cancelByCoordinationKey(target.key);
    const skipped = result.skipped > 0 ? `; ${result.skipped} already finished` : '';
    printText(cmd, result, `${result.message} sharing dedup key '${result.coordination_key}'${skipped}`);
    return;
  }
  const cancelled =
    target.by === 'id'
      ? await sched.actions.cancel(target.id)
      : await sched.actions.cancelByIdempotencyKey(target.key);
  printText(cmd, { data: cancelled }, `cancelled ${cancelled.id} (${cancelled.name})`);
}
