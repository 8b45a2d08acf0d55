import type { GateField, GateInput } from '@sched/contract';
import { defaultErrors } from '../../domain/approval/fields.js';
import { parseDuration } from '../../domain/schedule/duration.js';

/** The longest standing grant a gate may offer. */
const MAX_GRANT_MS = 30 * 24 * 3600 * 1000;

/**
 * What a gate asks of agents' approvers: its typed answer fields (each `default` checked by the rule that checks
 * answers) and the standing grant it may offer (`max_ttl` a duration up to 30 days). Reports through `fail` with
 * paths under `gate.`.
 */
export function agentParts(
  g: Pick<GateInput, 'fields' | 'grant'>,
  fail: (field: string, message: string) => void,
): { fields: GateField[]; grant: { key: string; max_ttl: string; max_ttl_ms: number } | null } {
  const fields = g.fields ?? [];
  for (const [path, messages] of Object.entries(defaultErrors(fields)))
    for (const m of messages) fail(path, m);
  if (!g.grant) return { fields, grant: null };
  const ms = parseDuration(g.grant.max_ttl);
  if (ms === null || ms <= 0 || ms > MAX_GRANT_MS) {
    fail('gate.grant.max_ttl', 'must be a duration up to 30d');
    return { fields, grant: null };
  }
  return { fields, grant: { key: g.grant.key, max_ttl: g.grant.max_ttl, max_ttl_ms: ms } };
}
