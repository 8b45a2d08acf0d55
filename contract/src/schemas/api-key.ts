import { z } from 'zod';
import { API_KEY_SCOPES } from '../vocabulary.js';
import { Duration, NullableTimestamp, Timestamp, Uuid } from './common.js';

export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES).meta({
  id: 'ApiKeyScope',
  description:
    '`read`: GET endpoints; `write`: every other method; `admin`: manage API keys (`/v1/api-keys`) and the signing secret (`/v1/signing-secret`).',
});

/** An API key as listed: never the secret, which is shown once, when the key is created or rotated. */
export const ApiKey = z
  .object({
    id: Uuid,
    name: z.string().nullable(),
    /** The first characters of the secret (`sk_sched_` and six more), to tell keys apart. */
    prefix: z.string(),
    scopes: z.array(ApiKeyScopeSchema),
    created_at: Timestamp,
    last_used_at: NullableTimestamp.meta({
      description: 'When the key was last used, to the minute (null: never).',
    }),
    expires_at: NullableTimestamp.meta({
      description:
        'When the key stops working (null: never). A rotated key expires at the end of its grace period.',
    }),
  })
  .meta({ id: 'ApiKey', description: 'An API key of the account; the secret itself is never shown again.' });

/** The answer of a create or a rotation: the key with its secret, shown this once. */
export const ApiKeyWithSecret = ApiKey.extend({
  key: z.string().meta({
    description: 'The secret (`sk_sched_...`): shown only in this answer; the server keeps only its SHA-256.',
  }),
}).meta({ id: 'ApiKeyWithSecret' });

const ExpiresAt = z.iso.datetime({ offset: true }).nullish().meta({
  description: 'When the key stops working, an ISO 8601 time in the future; omit or null for never.',
});

export const ApiKeyCreate = z
  .object({
    name: z.string().trim().min(1).max(255),
    scopes: z
      .array(ApiKeyScopeSchema)
      .min(1)
      .max(API_KEY_SCOPES.length)
      .default(['read', 'write'])
      .meta({ description: 'Default `["read", "write"]`. `admin` lets the key manage API keys.' }),
    expires_at: ExpiresAt,
  })
  .meta({ id: 'ApiKeyCreate' });

/** Rotation: a new secret for the same name and scopes; the old one keeps working through `grace_period`. */
export const ApiKeyRotate = z
  .object({
    grace_period: Duration.default('24h').meta({
      description:
        'How long the old secret keeps working (default `24h`, at most `30d`; `0s` revokes it at once). Deploy the new secret within it.',
    }),
    expires_at: ExpiresAt,
  })
  .meta({ id: 'ApiKeyRotate' });

export const ApiKeyRotated = z
  .object({
    data: ApiKeyWithSecret,
    meta: z.object({
      previous_key_id: Uuid,
      previous_key_expires_at: Timestamp.meta({ description: 'When the old secret stops working.' }),
    }),
  })
  .meta({ id: 'ApiKeyRotated' });

export type ApiKey = z.infer<typeof ApiKey>;
export type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecret>;
export type ApiKeyCreate = z.input<typeof ApiKeyCreate>;
export type ApiKeyRotate = z.input<typeof ApiKeyRotate>;
export type ApiKeyRotated = z.infer<typeof ApiKeyRotated>;

/**
 * The account's signing secret: what the account's actions, chains and template-made actions without a
 * `webhook_secret` of their own are signed with (docs/signatures.md). Every new account gets one.
 */
export const SigningSecret = z
  .object({
    secret: z.string().nullable().meta({
      description:
        'A Standard Webhooks secret (`whsec_` and base64 of 32 random bytes); null while the account has none.',
    }),
    created_at: NullableTimestamp.meta({ description: 'When this secret was made (null: none).' }),
    previous_expires_at: NullableTimestamp.meta({
      description:
        'While a rotation overlaps: until when requests also carry a signature with the secret this one replaced (null: none).',
    }),
  })
  .meta({ id: 'SigningSecret' });
/** A rotation of the signing secret: the one it replaces keeps signing beside it through `overlap`. */
export const SigningSecretRotate = z
  .object({
    overlap: Duration.default('24h').meta({
      description:
        'How long requests carry a signature with the replaced secret too (default `24h`, at most `30d`; `0s` drops it at once, as after a leak). Deploy the new secret within it.',
    }),
  })
  .meta({ id: 'SigningSecretRotate' });
export type SigningSecretRotate = z.input<typeof SigningSecretRotate>;
export type SigningSecret = z.infer<typeof SigningSecret>;
