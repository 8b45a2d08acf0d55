import type { Grant } from '@sched/contract';
import { callArgs, type RawClient } from './raw.js';
import type { CallOptions } from './transport.js';
import { unwrap } from './unwrap.js';

/**
 * Standing grants (`gate.grant`): what approvers allowed for a while. While one lives, an approval request of the
 * account with the same key is confirmed at once, without a message.
 */
export interface GrantsApi {
  /** The live grants, soonest to end first (`GET /v1/grants`). */
  list(options?: CallOptions): Promise<Grant[]>;
  /** Ends a grant now (`DELETE /v1/grants/{id}`); 404 once it expired or was revoked. */
  revoke(id: string, options?: CallOptions): Promise<Grant>;
}

export function grantsApi(raw: RawClient): GrantsApi {
  return {
    list: async (o) => unwrap(await raw.grants.list(callArgs(o)), 200).data,
    revoke: async (id, o) => unwrap(await raw.grants.revoke({ params: { id }, ...callArgs(o) }), 200).data,
  };
}
