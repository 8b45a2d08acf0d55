import { z } from 'zod';
import { TimeBound } from './action.js';
import {
  Duration,
  exactTotalLimit,
  NullableTimestamp,
  paginationQuery,
  ReadConsistencyFields,
} from './common.js';

/**
 * Past EXACT_TOTAL_LIMIT actions with a destination, the destinations list still counts the figures of an origin with
 * at most this many actions (a page of 100 origins then reads at most about 20,000 rows) and estimates the others'.
 */
export const DESTINATION_COUNTED_ACTIONS = 200;

/** The periods a destination's `flow.rate` counts over. */
export const FLOW_PERIODS = Object.freeze(['1s', '1m', '1h'] as const);
/** A destination's circuit states. */
export const CIRCUIT_STATES = Object.freeze(['closed', 'open', 'half_open', 'disabled'] as const);

/** A destination host as the API names it: lowercase, as `destination_host` of an action. */
export const DestinationHost = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\s/?#@]+$/, 'must be a host name or address, without scheme, path or port')
  .transform((h) => h.toLowerCase().replace(/\.+$/, ''));

/**
 * A destination as a path names it: its origin (`http://127.0.0.1:9000`, URL-encoded in the path), or a bare host,
 * which means that host's https origin on the default port (`api.example.com` is `https://api.example.com`). The
 * server spells it the one way (lower case, punycode, default port left out) and answers 422 for anything else.
 */
export const DestinationKey = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[^\s?#@]+$/, 'must be an origin (scheme://host[:port]) or a host name')
  .meta({
    description:
      'An origin, URL-encoded (`http%3A%2F%2F127.0.0.1%3A9000`), or a bare host: its https origin on the default port.',
  });

export const FlowSettings = z
  .strictObject({
    rate: z.number().int().min(1).max(1_000_000).optional().meta({
      description: 'At most this many requests start per `period` (with `period`, default `1s`).',
    }),
    period: z
      .enum(FLOW_PERIODS)
      .optional()
      .meta({ description: 'The window `rate` counts over; default `1s`.' }),
    parallelism: z.number().int().min(1).max(10_000).optional().meta({
      description: 'At most this many requests in flight to the origin at once, across every worker.',
    }),
  })
  .meta({ id: 'DestinationFlow', description: 'Flow control of one origin; `null` (or absent) means none.' });
export type FlowSettings = z.infer<typeof FlowSettings>;

export const CircuitSettings = z
  .strictObject({
    enabled: z
      .boolean()
      .optional()
      .meta({ description: 'Default true: the breaker is on for every origin.' }),
    min_requests: z.number().int().min(1).max(100_000).optional().meta({ description: 'Default 10.' }),
    window: Duration.optional().meta({ description: 'Default `5m`.' }),
    failure_rate: z.number().min(0.01).max(1).optional().meta({ description: 'Default 0.7.' }),
    open_for: Duration.optional().meta({ description: 'Default `1m`, doubling on each reopening to a cap.' }),
    disable_after: Duration.optional().meta({ description: 'Default `5d`.' }),
  })
  .meta({
    id: 'DestinationCircuitSettings',
    description: 'Circuit breaker settings; `null` restores the defaults.',
  });
export type CircuitSettings = z.infer<typeof CircuitSettings>;

export const DestinationUpdate = z
  .strictObject({
    flow: FlowSettings.nullable().optional(),
    circuit: CircuitSettings.nullable().optional(),
  })
  .meta({ id: 'DestinationUpdate', description: 'A part left out keeps its value; `null` clears it.' });
export type DestinationUpdate = z.infer<typeof DestinationUpdate>;

export const DestinationCircuit = z
  .object({
    state: z.enum(CIRCUIT_STATES).meta({
      description:
        '`closed`: deliveries go out. `open`: they wait (no attempt spent) until `next_probe_at`. `half_open`: one probe goes out; its success closes, its failure reopens. `disabled`: they wait until `POST /v1/destinations/{origin}/enable`.',
    }),
    enabled: z.boolean(),
    min_requests: z.number().int(),
    window: z.string(),
    failure_rate: z.number(),
    open_for: z.string(),
    disable_after: z.string(),
    opened_at: NullableTimestamp.meta({
      description:
        'When the outage began (the first opening since the circuit was last closed); null when closed.',
    }),
    next_probe_at: NullableTimestamp.meta({
      description: 'While open: when it turns half-open and lets a probe through.',
    }),
    reopens: z.number().int().meta({
      description: 'Failed probes since the outage began: `open_for` doubles with each, up to 1 hour.',
    }),
  })
  .meta({
    id: 'DestinationCircuit',
    description: 'The effective circuit settings (defaults filled in) and its state.',
  });

const PeriodStats = z.object({
  attempts: z.number().int(),
  failures: z.number().int(),
  p50_ms: z.number().int().nullable(),
  p99_ms: z.number().int().nullable(),
});

export const DestinationPause = z
  .object({ paused_at: z.string(), until: NullableTimestamp, note: z.string().nullable() })
  .meta({ id: 'DestinationPause' });

const originField = z.string().meta({
  description:
    'The destination: scheme, host and port (`https://api.example.com`, `http://127.0.0.1:9000`); the default port is left out.',
});
const hostField = z.string().meta({ description: "The origin's host, as `destination_host` names it." });

export const Destination = z
  .object({
    origin: originField,
    host: hostField,
    flow: FlowSettings.nullable(),
    circuit: DestinationCircuit,
    paused: z.boolean().meta({ description: 'True while every delivery to the origin is held.' }),
    pause: DestinationPause.nullable().meta({ description: 'When and until when it is paused, and why.' }),
    in_flight: z.number().int().meta({ description: 'Attempts to the origin running now.' }),
    waiting: z.number().int().meta({ description: 'Attempts to the origin due now and not yet started.' }),
    stats: z.object({ last_24h: PeriodStats }),
  })
  .meta({ id: 'Destination' });
export type Destination = z.infer<typeof Destination>;

export const DestinationSummary = z
  .object({
    origin: originField,
    host: hostField,
    paused: z.boolean(),
    circuit_state: z
      .enum(CIRCUIT_STATES)
      .meta({ description: "The origin's circuit breaker: `closed` unless it is failing." }),
    configured: z
      .boolean()
      .meta({ description: 'True when the origin has flow or circuit settings of its own.' }),
    actions: z.number().int().meta({ description: "The account's actions aimed at the origin." }),
    scheduled: z.number().int().meta({ description: 'Of those, waiting for their time (or held).' }),
    in_flight: z.number().int().meta({ description: 'Requests to the origin running now (always counted).' }),
    failed: z.number().int(),
    counts_exact: z
      .boolean()
      .optional()
      .meta({
        description: `Present, and false, only when \`actions\`, \`scheduled\` and \`failed\` are PostgreSQL's estimates: the account has more than ${exactTotalLimit} actions with a destination (counting them by origin and state takes seconds) and the origin more than ${DESTINATION_COUNTED_ACTIONS} of them.`,
      }),
  })
  .meta({ id: 'DestinationSummary' });
export type DestinationSummary = z.infer<typeof DestinationSummary>;

/** `GET /v1/destinations`: a page of the account's origins, in origin order. */
export const DestinationListQuery = z.object({ ...paginationQuery(100), ...ReadConsistencyFields });
export type DestinationListQuery = z.input<typeof DestinationListQuery>;

export const DestinationPauseBody = z
  .strictObject({
    until: TimeBound.optional().meta({
      description: 'ISO 8601 with an offset: resumes by itself then. Absent: paused until resumed.',
    }),
    note: z.string().max(1000).optional(),
  })
  .meta({ id: 'DestinationPauseRequest' });
export type DestinationPauseBody = z.infer<typeof DestinationPauseBody>;

export const DestinationRecoverBody = z
  .strictObject({
    since: TimeBound.meta({ description: 'Failed at or after this time.' }),
    until: TimeBound.optional().meta({ description: 'Failed before this time (default: now).' }),
    dry_run: z.boolean().default(true).meta({ description: 'Defaults to true: count, change nothing.' }),
    note: z.string().max(1000).optional(),
  })
  .meta({ id: 'DestinationRecoverRequest' });
export type DestinationRecoverBody = z.output<typeof DestinationRecoverBody>;

export const DestinationTestBody = z
  .strictObject({
    path: z
      .string()
      .max(2000)
      .regex(/^\/[^\s#]*$/, 'must start with / (a path and query on the host)')
      .default('/')
      .meta({ description: 'The path (and query) to send to on the host; default `/`.' }),
    scheme: z.enum(['https', 'http']).default('https').meta({ description: 'Default `https`.' }),
    port: z.number().int().min(1).max(65_535).optional().meta({
      description: "Default: the scheme's (443 or 80).",
    }),
  })
  .meta({ id: 'DestinationTestRequest' });
export type DestinationTestBody = z.output<typeof DestinationTestBody>;

export const DestinationTestResult = z
  .object({
    url: z.string().meta({
      description: 'Where the test request went.',
      examples: ['https://api.example.com/hooks/sched'],
    }),
    status: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The host's HTTP status; null when no answer came (see `error`)." }),
    duration_ms: z.number().int(),
    error: z.string().optional().meta({
      description: 'Why no answer came: a timeout, a refused connection, an address the SSRF policy blocks.',
    }),
    response_excerpt: z
      .string()
      .optional()
      .meta({ description: 'The first 512 characters of the answer body, when it had one.' }),
    signed: z.boolean().meta({ description: "True when the request carried the account's signatures." }),
  })
  .meta({ id: 'DestinationTestResult' });
export type DestinationTestResult = z.infer<typeof DestinationTestResult>;

/** What a test-send posts (`type: "sched.test"`): a receiver can tell it from a delivery and ignore it. */
export const DestinationTestEvent = z
  .object({
    type: z.literal('sched.test'),
    id: z.string().meta({
      description: 'The message id, also `webhook-id`.',
      examples: ['test_5f0c8a7e-3b1d-4c2a-9e6f-7d8b9a0c1e2f'],
    }),
    destination: z.string().meta({ description: 'The host tested.', examples: ['api.example.com'] }),
    sent_at: z.string().meta({ examples: ['2030-01-31T09:00:00.000Z'] }),
    message: z.string().meta({
      examples: ['A test request from sched: nothing to do. Check its signature, then answer 2xx.'],
    }),
  })
  .meta({ id: 'DestinationTestEvent' });
export type DestinationTestEvent = z.infer<typeof DestinationTestEvent>;
