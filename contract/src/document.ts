import {
  ACTION_CALLBACK_EVENTS,
  type ActionCallbackEvent,
  AlertWebhookBody,
  DestinationTestEvent,
  ActionExecutedCallback,
  ActionExpiredCallback,
  ActionFailedCallback,
  ActionPausedCallback,
  ActionResumedCallback,
  CHAIN_CALLBACK_EVENTS,
  ChainCallback,
  contract,
  ReminderRespondedCallback,
} from './index.js';
import { buildOpenApiDocument, type TagInfo } from './openapi.js';

const TAGS: TagInfo[] = [
  { name: 'actions', description: 'Scheduled webhooks and approvals: create, list, follow, cancel, retry.' },
  {
    name: 'bulkOperations',
    description:
      'Cancel, retry, replay, pause or resume many actions at once: a dry run first, then progress.',
  },
  { name: 'audit', description: 'The tamper-evident audit log: list, verify the hash chain, export.' },
  { name: 'auditExport', description: 'The audit log as a streamed NDJSON or CSV file.' },
  {
    name: 'reminders',
    description: 'Approvals in flight: what waits on whom, a reminder sent now, a recipient reassigned.',
  },
  { name: 'approvals', description: 'Approvals waiting on people, by recipient.' },
  {
    name: 'grants',
    description:
      'Standing grants approvers gave: requests with the same key confirmed at once, until revoked.',
  },
  {
    name: 'destinations',
    description: 'The hosts the account sends to: flow control, pause, recover, circuit settings.',
  },
  {
    name: 'alertRules',
    description:
      'Alert rules: operator events (failures, expiries, circuits, lateness) told by email, SMS, chat or webhook.',
  },
  { name: 'chains', description: 'Sequences of HTTP calls, approvals and waits that pass results along.' },
  { name: 'templates', description: 'Saved actions or chains, triggered through a public secret URL.' },
  { name: 'contacts', description: 'People approvals are sent to, by name instead of by address.' },
  {
    name: 'channels',
    description: 'Notification channels (Slack, Teams) that approvals can be sent through.',
  },
  { name: 'teamMembers', description: 'Team members that approvals can be addressed to.' },
  { name: 'domains', description: 'Destination domains: verification lifts the per-domain thresholds.' },
  { name: 'outbox', description: 'Messages of unconfigured channels, kept by a development server.' },
  { name: 'quota', description: "The account's plan and what it has used this period." },
  {
    name: 'schedules',
    description: 'When a schedule would run (occurrences, DST effects, delivery windows), creating nothing.',
  },
  {
    name: 'calendars',
    description: 'Closed days (your dates and public holidays) that delivery windows and quiet hours name.',
  },
  {
    name: 'apiKeys',
    description: "The account's API keys: create, list, rotate with a grace period, revoke (`admin` scope).",
  },
  { name: 'responses', description: 'The login-free response links of approvals (no API key).' },
  { name: 'trigger', description: "A template's public trigger URL (no API key; the token is the secret)." },
  {
    name: 'integrations',
    description:
      'Answers given outside sched: Slack button clicks and replies to approval emails (no API key).',
  },
  { name: 'system', description: 'Liveness and readiness probes (no API key).' },
];

const ACTION_CALLBACKS = {
  'action.executed': ActionExecutedCallback,
  'action.failed': ActionFailedCallback,
  'action.expired': ActionExpiredCallback,
  'action.paused': ActionPausedCallback,
  'action.resumed': ActionResumedCallback,
  'reminder.responded': ReminderRespondedCallback,
} satisfies Record<ActionCallbackEvent, unknown>;

const CALLBACK_NOTE =
  'Signed with the `webhook_secret` when there is one (docs/signatures.md); `x-sched-event` names the event and ' +
  '`webhook-id` equals the body `id`, the same on every retry: deduplicate by it. Retried on 429, 5xx and ' +
  'network errors, 3 tries in all (docs/callbacks.md).';

/** The committed docs/openapi.json, as an object: also what `GET /openapi.json` serves (with its own `servers`). */
export function openApiDocument() {
  return buildOpenApiDocument(
    contract,
    {
      title: 'sched API',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Scheduled webhooks and human approvals. Single resources are `{ data }`; lists are `{ data, meta }`; ' +
        'every error is `{ code, message }` with a stable `code` (the `ErrorCode` schema lists them); validation ' +
        'failures are 422 `{ code, message, errors }` with dotted field paths; a body that is not JSON is 400. Every response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`. ' +
        "The requests sched sends to an action's or a chain's `callback_url` are listed under `webhooks`.",
    },
    Object.fromEntries([
      ...ACTION_CALLBACK_EVENTS.map((event) => [
        event,
        {
          summary: `Action callback \`${event}\` to the action's callback_url`,
          description: CALLBACK_NOTE,
          body: ACTION_CALLBACKS[event],
        },
      ]),
      ...CHAIN_CALLBACK_EVENTS.map((event) => [
        event,
        {
          summary: `Chain callback \`${event}\` to the chain's callback_url`,
          description: CALLBACK_NOTE,
          body: ChainCallback,
        },
      ]),
      [
        'alert',
        {
          summary: "An alert to an alert rule's webhook channel",
          description:
            "Signed with the channel's `secret` when it has one (docs/signatures.md); `x-sched-event: alert`; " +
            '`webhook-id` equals the body `id`, the same on every retry: deduplicate by it. Retried on 429, 5xx ' +
            'and network errors, 3 tries in all (docs/alerts.md).',
          body: AlertWebhookBody,
        },
      ],
      [
        'sched.test',
        {
          summary: 'A test request to a destination (`POST /v1/destinations/{host}/test`)',
          description:
            "Signed with the account's signing secret(s) like a delivery (docs/signatures.md); " +
            '`x-sched-event: sched.test`; sent once, never retried (docs/destinations.md#test-send).',
          body: DestinationTestEvent,
        },
      ],
    ]),
    TAGS,
  );
}

/** The committed docs/openapi.json, as text (stable key order, trailing newline). */
export function renderOpenApi(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
