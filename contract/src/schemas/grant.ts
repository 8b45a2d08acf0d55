import { z } from 'zod';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';

/** A standing grant: an approver's confirm that allowed the same `gate.grant.key` for a while. */
export const Grant = z
  .object({
    id: Uuid,
    key: z.string(),
    action_id: Uuid.meta({ description: 'The approval the grant was given on.' }),
    given_by: z.string().meta({ description: 'The address of the recipient who gave it.' }),
    expires_at: Timestamp,
    revoked_at: NullableTimestamp,
    created_at: Timestamp,
  })
  .meta({ id: 'Grant' });
export type Grant = z.infer<typeof Grant>;
