import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { AccountSchema } from './account.js';

/**
 * A standing grant (`gate.grant`): an approver's confirm that also allowed the same key for a while. Until it
 * expires or is revoked, an approval request of the account with the same key is confirmed at once.
 */
export const GrantSchema = defineEntity({
  name: 'Grant',
  tableName: 'grants',
  indexes: [{ properties: ['account', 'key', 'expiresAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    key: p.string().length(200),
    /** The approval the grant was given on. */
    actionId: p.uuid(),
    /** Who gave it: the recipient and the address their answer came from. */
    recipientId: p.uuid(),
    givenBy: p.string().length(320),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type Grant = InferEntity<typeof GrantSchema>;
