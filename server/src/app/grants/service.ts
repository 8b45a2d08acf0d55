import type { Grant } from '@sched/contract';
import { type GrantRow, liveGrants, revokeGrant } from '../../persistence/grants.js';
import { recordAudit } from '../audit.js';
import { NotFoundError } from '../errors.js';
import type { Clock, Store } from '../ports.js';

/** The most live grants one list answers. */
const LIST_LIMIT = 500;

function grantView(g: GrantRow): Grant {
  return {
    id: g.id,
    key: g.key,
    action_id: g.action_id,
    given_by: g.given_by,
    expires_at: g.expires_at.toISOString(),
    revoked_at: g.revoked_at?.toISOString() ?? null,
    created_at: g.created_at.toISOString(),
  };
}

/** `GET /v1/grants` and `DELETE /v1/grants/{id}`, scoped to the caller's account. */
export class GrantService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async list(accountId: string): Promise<Grant[]> {
    return (await liveGrants(this.deps.store.sql, accountId, this.deps.clock(), LIST_LIMIT)).map(grantView);
  }

  async revoke(accountId: string, id: string): Promise<Grant> {
    return this.deps.store.transaction(async (tx) => {
      const revoked = await revokeGrant(tx, accountId, id, this.deps.clock());
      if (!revoked) throw new NotFoundError('grant');
      await recordAudit(tx, accountId, {
        action: 'grant.revoke',
        resource: { type: 'grant', id },
        details: { key: revoked.key, given_by: revoked.given_by, action_id: revoked.action_id },
      });
      return grantView(revoked);
    });
  }
}
