import { remindRefusal } from '@sched/contract/machines';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import { lockOwnAction } from '../actions/transition.js';
import { ConflictError } from '../errors.js';
import type { Clock, GateTimers, Store } from '../ports.js';

/**
 * `POST /actions/{id}/remind`: a reminder now to the recipients who have not answered. The API only checks and
 * queues it (a gate timer due now, in its transaction); a worker sends it (rounds.ts `remind`), with new links that
 * answer like the first ones.
 */
export class ReminderRequests {
  constructor(private readonly deps: { store: Store; timers: GateTimers; clock: Clock }) {}

  async remind(accountId: string, id: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const row = await lockOwnAction(tx, accountId, id);
      const refusal = remindRefusal(row, row.mode === 'approval' ? await recipientsOf(tx, row.id) : []);
      if (refusal === 'not_waiting')
        throw new ConflictError(`action ${row.id} is ${row.status}: nothing is waiting for an answer`);
      if (refusal === 'all_answered')
        throw new ConflictError(`every recipient of action ${row.id} has answered`);
      await this.deps.timers.set(tx, { actionId: row.id, kind: 'reminder', manual: true }, this.deps.clock());
    });
  }
}
