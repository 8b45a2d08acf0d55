import { z } from 'zod';
import { ReadConsistencyFields, Timestamp } from './common.js';

export const AUDIT_ACTOR_TYPES = Object.freeze([
  'api_key',
  'recipient',
  'system',
  'template_trigger',
] as const);

export const AuditActor = z
  .object({
    type: z.enum(AUDIT_ACTOR_TYPES),
    id: z.string(),
    email: z.string().optional(),
  })
  .meta({
    id: 'AuditActor',
    description:
      'Who made the change: an API key (or a console session acting as it), a recipient answering through a link, the service itself, or a template trigger.',
  });

export const AuditEvent = z
  .object({
    seq: z.number().int(),
    id: z.uuid(),
    at: Timestamp,
    action: z.string().meta({ examples: ['action.create', 'approval.confirm', 'api_key.revoke'] }),
    actor: AuditActor,
    resource: z.object({ type: z.string(), id: z.string() }),
    channel: z.string().optional(),
    ip: z.string().optional(),
    user_agent: z.string().optional(),
    request_id: z.string().optional(),
    details: z.record(z.string(), z.unknown()),
    prev_hash: z.string(),
    hash: z.string(),
  })
  .meta({
    id: 'AuditEvent',
    description:
      "One entry of the account's audit log (docs/audit.md). `hash` = sha256(`prev_hash` ‖ canonical JSON of the event without `prev_hash` and `hash`), lowercase hex; the first event's `prev_hash` is 64 zeros (or the anchor left by retention).",
  });
export type AuditEvent = z.infer<typeof AuditEvent>;

export const AuditVerification = z
  .object({
    ok: z.boolean(),
    checked: z.number().int(),
    broken_at: z.number().int().optional(),
    head_seq: z.number().int().meta({ description: "The last event's `seq`, as the log's head records it." }),
    head_hash: z.string().meta({
      description:
        "The last event's `hash`, as the head records it. Keep it outside the database (a checkpoint): a later head must extend it.",
    }),
  })
  .meta({
    id: 'AuditVerification',
    description:
      'The chain recomputed from its anchor to its head: `broken_at` is the `seq` of the first event that does not hold, or the first one missing before the head.',
  });
export type AuditVerification = z.infer<typeof AuditVerification>;

export const AuditEventsQuery = z.object({
  resource_id: z.string().max(255).optional(),
  action: z
    .string()
    .max(64)
    .optional()
    .meta({ description: 'An action name; `*` matches any run of characters (`approval.*`).' }),
  actor_type: z.enum(AUDIT_ACTOR_TYPES).optional(),
  from: Timestamp.optional().meta({ description: 'Events at or after this time.' }),
  to: Timestamp.optional().meta({ description: 'Events before this time.' }),
  ...ReadConsistencyFields,
});

export const AuditEventsPage = z
  .object({
    data: z.array(AuditEvent),
    meta: z.object({
      next_after: z
        .number()
        .int()
        .nullable()
        .meta({ description: 'Pass as `after` for the next page; null on the last page.' }),
      limit: z.number().int(),
    }),
  })
  .meta({ id: 'AuditEventsPage' });

export const AuditSettings = z
  .object({
    action_create: z.boolean().meta({
      description:
        "Whether each action's create is recorded in the chain (`action.create`, a data event, as CloudTrail calls them). On by default, as every change is; an account with many creates may turn it off, since the action row already says who made it and with which key, and the event doubles what a create writes (docs/audit.md). Every other event is always recorded.",
    }),
  })
  .meta({ id: 'AuditSettings', description: "Which data events the account's audit log records." });
export type AuditSettings = z.infer<typeof AuditSettings>;

export const AuditSettingsUpdate = z.object({ action_create: z.boolean().optional() }).meta({
  id: 'AuditSettingsUpdate',
  description: 'The settings to change; those left out keep their value.',
});
export type AuditSettingsUpdate = z.infer<typeof AuditSettingsUpdate>;
