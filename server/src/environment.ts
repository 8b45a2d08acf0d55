/**
 * Every environment variable the server reads, with its default and meaning: the ONE source of the README's
 * Configuration table (`pnpm docs:env` writes it; a test fails when it is stale) and of `sched serve --help`.
 * Defaults are written as people read them (`unset`, `` `8080` ``); config.test.ts checks each one against the
 * parser's own default, so the two cannot drift. This module imports nothing: the CLI reads it for its help.
 */
export interface EnvironmentVariable {
  /** One row may document a group of variables that go together (all or none). */
  names: string[];
  default: string;
  meaning: string;
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  {
    names: ['DATABASE_URL'],
    default: 'unset',
    meaning:
      'PostgreSQL to use. Unset: an embedded PostgreSQL (real PostgreSQL 17 from an npm package) whose data lives in `SCHED_DATA_DIR` and survives restarts.',
  },
  {
    names: ['SCHED_READ_DATABASE_URL'],
    default: 'unset',
    meaning:
      "A streaming replica of `DATABASE_URL` for the reads that may lag: lists, the failed inbox, stats, the console's reads and the audit export. Whatever decides stays on the primary; an account's reads go to the primary for a few seconds after its writes, and with `consistency=strong` (docs/scale.md).",
  },
  {
    names: ['SCHED_READ_REPLICA_MAX_LAG_SECONDS'],
    default: '`5`',
    meaning:
      'A replica lagging more than this (or down) sends every read to the primary until it catches up.',
  },
  {
    names: ['SCHED_READ_YOUR_WRITES_SECONDS'],
    default: '`5`',
    meaning:
      "How long after an account's last write its reads stay on the primary (longer while the replica's lag is longer).",
  },
  {
    names: ['PORT'],
    default: '`8080`',
    meaning: 'HTTP port (`0` picks a free one).',
  },
  {
    names: ['HOST'],
    default: '`127.0.0.1`',
    meaning: 'Listen address (`0.0.0.0` to serve other machines).',
  },
  {
    names: ['SCHED_PUBLIC_URL'],
    default: '`http://localhost:$PORT`',
    meaning: 'Public root: `{base_url}` is `$SCHED_PUBLIC_URL/v1`, trigger and response links live under it.',
  },
  {
    names: ['SCHED_DATA_DIR'],
    default: '`.sched`',
    meaning:
      'Embedded database, its password, and the first-start `credentials` file. Processes using one directory share one PostgreSQL; the last to stop stops it. As root, when the `postgres` user cannot reach it (e.g. under `/root`), the cluster lives in `/var/lib/sched-embedded/`.',
  },
  {
    names: ['SCHED_ALLOW_PRIVATE_DESTINATIONS'],
    default: '`false`',
    meaning: '`true` allows `http://` and loopback/private destinations: development and tests only.',
  },
  {
    names: ['SCHED_ALLOWED_PRIVATE_NETWORKS'],
    default: 'unset',
    meaning:
      'Networks destinations may reach although they are not public, for internal services in production: addresses or CIDRs, comma-separated (`10.20.0.0/16,fd00:1::/64,192.168.1.7`). Plain `http://` is sent only into them; every other destination stays guarded (docs/security.md).',
  },
  {
    names: ['SCHED_VALIDATE_RESPONSES'],
    default: 'unset',
    meaning:
      'Checks every API response against the contract (an off-contract body answers 500); unset: on, off when `NODE_ENV=production`.',
  },
  {
    names: ['SCHED_TIME_SCALE'],
    default: '`1`',
    meaning:
      'Dev/test only: a factor > 1 divides every wait the service chooses (retry backoff, callback retries, snooze, escalation, gate timeout, reschedule delays, recurrence intervals). Refused when `NODE_ENV=production`.',
  },
  {
    names: ['SCHED_RATE_LIMIT_FACTOR'],
    default: '`1`',
    meaning:
      'Multiplies every rate limit of the API for all accounts (per-account factors multiply it again).',
  },
  {
    names: ['SCHED_METRICS_TOKEN'],
    default: 'unset',
    meaning: 'When set, `GET /metrics` requires `Authorization: Bearer <token>`.',
  },
  {
    names: ['SCHED_METRICS_HOST_LABELS'],
    default: '`false`',
    meaning:
      "`true` adds per-host gauges to `/metrics` (`sched_destination_held_deliveries`, `sched_destination_circuit`, labelled `host`) for the 20 hosts with the most held deliveries, then those with a circuit not closed. Off: only the totals by reason and by circuit state. Needs `SCHED_METRICS_TOKEN` (the labels name every account's destinations).",
  },
  {
    names: ['SCHED_DOCS'],
    default: 'unset',
    meaning:
      "`true` serves Swagger UI at `/docs`, `false` does not. Unset: served, except with `NODE_ENV=production` (the page shares the console's origin). `/openapi.json` is always served.",
  },
  {
    names: ['SCHED_CORS_ORIGINS'],
    default: 'unset',
    meaning:
      'Browser origins allowed to call `/v1` from their pages (CORS), comma-separated (`https://app.example.com,http://localhost:5173`), or `*`. Unset: no CORS (same-origin only). Keys go in the Authorization header; no cookies cross origins.',
  },
  {
    names: ['SCHED_PLANS_FILE'],
    default: 'unset',
    meaning:
      'A JSON file overriding plan limits for this server, e.g. `{"business": {"schedule_horizon_days": 3650, "max_attempts": 50}}` (fields as in `GET /v1/quota`; docs/self-hosting.md). Checked at start.',
  },
  {
    names: ['SCHED_SHUTDOWN_TIMEOUT_MS'],
    default: '`30000`',
    meaning:
      'How long SIGTERM waits for in-flight work before exiting. Closing connections gets up to 15 s more; a stop past both exits with 1, naming the step it waited on.',
  },
  {
    names: ['SCHED_HEAP_MB', 'SCHED_SEMI_SPACE_MB'],
    default: '`1024`, `16`',
    meaning:
      "V8's heap for `sched serve`: the old generation's limit (`--max-old-space-size`) and the young generation's semi-space (`--max-semi-space-size`), in MiB; `0` leaves Node's own default. Node sizes both from the machine's memory (a 128 MiB young generation on 24 GiB), which a service whose live heap is 40-80 MiB does not need. The same flag in `NODE_OPTIONS` wins (docs/performance.md, Memory).",
  },
  {
    names: ['SCHED_DB_CONNECT_TIMEOUT_MS'],
    default: '`3000`',
    meaning:
      'How long a request or worker waits for a database connection (pool queue and connect together) before answering 503 (docs/operations-database.md).',
  },
  {
    names: ['SCHED_DB_STATEMENT_TIMEOUT_MS'],
    default: '`5000`',
    meaning:
      "`statement_timeout` of the service's connections (`0`: none); a statement past it answers 503. Migrations and pg-boss run without it.",
  },
  {
    names: ['SCHED_JOB_EXPIRE_SECONDS'],
    default: '`300`',
    meaning:
      'How long a pg-boss job may stay active before pg-boss retries it (a worker died holding it); set when a queue is created.',
  },
  {
    names: ['SCHED_DELIVERY_CONCURRENCY'],
    default: '`256`',
    meaning:
      'Delivery attempts (and approval rounds) in flight at once in one worker process; more wait, unclaimed (docs/actions.md, fairness).',
  },
  {
    names: ['SCHED_DELIVERY_ACCOUNT_CONCURRENCY'],
    default: '`128`',
    meaning:
      "One account's requests in flight at once in one worker process; the accounts due are served round-robin.",
  },
  {
    names: ['SCHED_TRUST_PROXY'],
    default: 'unset',
    meaning:
      "Proxies to believe for the client IP (per-IP rate limits) and `X-Request-Id`: a hop count (`1`) or addresses and CIDRs (`10.0.0.0/8,127.0.0.1`). Unset: the socket's peer is the client and request ids are generated. `true` is refused.",
  },
  {
    names: ['SCHED_HTTP_REQUEST_TIMEOUT_MS'],
    default: '`30000`',
    meaning: 'Time a client has to send a whole request (slow bodies get 408); `0` turns it off.',
  },
  {
    names: ['SCHED_HTTP_CONNECTION_TIMEOUT_MS'],
    default: '`120000`',
    meaning: 'Idle socket limit; `0` turns it off.',
  },
  {
    names: ['SCHED_HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    default: '`72000`',
    meaning: 'How long an idle keep-alive connection stays open.',
  },
  {
    names: ['SCHED_DOMAIN_DAY_LIMIT', 'SCHED_DOMAIN_MONTH_LIMIT'],
    default: '`10`, `100`',
    meaning:
      'Actions an account may create to one unverified destination hostname per UTC day and month (docs/domains.md).',
  },
  {
    names: ['SCHED_DNS_SERVERS'],
    default: 'unset',
    meaning: "Resolvers for domain verification, comma-separated `host` or `host:port`; unset: the system's.",
  },
  {
    names: ['SCHED_SMTP_URL'],
    default: 'unset',
    meaning:
      'Email channel: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. Unset: emails are kept in the outbox (`sched outbox list`).',
  },
  {
    names: ['SCHED_EMAIL_FROM'],
    default: '`sched <no-reply@localhost>`',
    meaning: 'From header of approval emails.',
  },
  {
    names: ['SCHED_TWILIO_ACCOUNT_SID', 'SCHED_TWILIO_AUTH_TOKEN', 'SCHED_TWILIO_FROM'],
    default: 'unset',
    meaning:
      'SMS channel through the Twilio Messages API (all three or none). Unset: SMS are kept in the outbox.',
  },
  {
    names: ['SCHED_TWILIO_API_URL'],
    default: '`https://api.twilio.com`',
    meaning: 'Base URL of a Twilio-compatible Messages API.',
  },
  {
    names: ['SCHED_VAPID_PUBLIC_KEY', 'SCHED_VAPID_PRIVATE_KEY', 'SCHED_VAPID_SUBJECT'],
    default: 'unset',
    meaning:
      'Web Push channel (VAPID; all three or none). Slack and Teams need no variable: each channel resource carries its webhook URL.',
  },
  {
    names: ['SCHED_SLACK_BOT_TOKEN', 'SCHED_SLACK_SIGNING_SECRET'],
    default: 'unset',
    meaning:
      'Slack app mode (both or none; docs/approvals.md): approvals to `slack:<member id>` recipients and to channels with a `slack_channel_id` go through the Web API with the bot token (`xoxb-…`), with buttons answered in Slack; clicks arrive at `POST /integrations/slack/interactions`, verified with the signing secret.',
  },
  {
    names: ['SCHED_SLACK_API_URL'],
    default: '`https://slack.com/api`',
    meaning: 'Slack Web API root (a proxy, or a stand-in in tests).',
  },
  {
    names: ['SCHED_INBOUND_EMAIL_DOMAIN'],
    default: 'unset',
    meaning:
      'Approve by replying: approval emails carry `Reply-To: reply+<token>@<domain>`; mail for that domain must reach `SCHED_INBOUND_SMTP_PORT` or the inbound hook. Unset: no reply address.',
  },
  {
    names: ['SCHED_INBOUND_SMTP_PORT'],
    default: 'unset',
    meaning:
      'The api role listens for replies on this SMTP port (`0` picks a free one); at most 1 MiB a message and 30 messages a minute per client address.',
  },
  {
    names: ['SCHED_INBOUND_SMTP_HOST'],
    default: '`$HOST`',
    meaning: 'Listen address of the inbound SMTP port.',
  },
  {
    names: ['SCHED_INBOUND_SMTP_TLS_CERT', 'SCHED_INBOUND_SMTP_TLS_KEY'],
    default: 'unset',
    meaning: 'PEM certificate and key files (both or none): the inbound SMTP port offers STARTTLS.',
  },
  {
    names: ['SCHED_INBOUND_EMAIL_SECRET'],
    default: 'unset',
    meaning:
      "Shared secret (16+ characters) of `POST /integrations/email/inbound`, which takes a reply as raw MIME from a mail provider's inbound hook (`Authorization: Bearer <secret>`). Unset: that route answers 404.",
  },
  {
    names: ['OTEL_EXPORTER_OTLP_ENDPOINT'],
    default: 'unset',
    meaning:
      "OpenTelemetry collector (OTLP/HTTP, JSON): when set, spans of deliveries (linked to the creating request's `traceparent`), approval sends and answers go to `$OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces`, and receivers get a `traceparent`. Each API request is a span too. `OTEL_SERVICE_NAME` (default `sched`) and `OTEL_RESOURCE_ATTRIBUTES` name the service; the exporter's own `OTEL_*` variables apply (`OTEL_EXPORTER_OTLP_HEADERS`). Unset: tracing is off and its SDK never loaded.",
  },
  {
    names: ['LOG_LEVEL'],
    default: '`info`',
    meaning:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. Logs are JSON (pino; readable lines at a terminal, see `SCHED_LOG_FORMAT`) with request ids, one line per request; keys and secrets are never logged. Lines are written in batches (at most 200 ms or 8 KiB late; flushed at exit, a `kill -9` may lose that much).',
  },
  {
    names: ['SCHED_LOG_FORMAT'],
    default: '`auto`',
    meaning:
      '`auto`: one readable line per event (time, level, message, fields; a request as `GET /v1/actions 200 3.1ms`) when stdout is a terminal, JSON otherwise; `json` or `pretty` to choose.',
  },
  {
    names: ['NODE_ENV'],
    default: '`development`',
    meaning:
      '`production` turns off response validation, refuses `SCHED_TIME_SCALE`, closes `GET /v1/outbox` (a development server answers it to `admin` keys: its messages carry live response links), and keeps no outbox: an approval whose channels all lack their settings is refused at create, and a message on such a channel is recorded as not sent (docs/approvals.md, Channels).',
  },
];

const README_START =
  '<!-- environment:start (generated from server/src/environment.ts by `pnpm docs:env`) -->';
const README_END = '<!-- environment:end -->';

/** The README's Configuration table, in Markdown. */
export function environmentTable(): string {
  const rows = ENVIRONMENT.map(
    (v) => `| ${v.names.map((n) => `\`${n}\``).join(', ')} | ${v.default} | ${v.meaning} |`,
  );
  return [README_START, '| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows, README_END].join(
    '\n',
  );
}

/** The README with its table replaced by the current one. */
export function withEnvironmentTable(readme: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < 0) throw new Error(`README.md lacks the ${README_START} ... ${README_END} markers`);
  return readme.slice(0, start) + environmentTable() + readme.slice(end + README_END.length);
}

/** `sched serve --help`: the same rows as plain text. */
export function environmentHelp(): string {
  const plain = (s: string) => s.replaceAll('`', '');
  const lines = ['Environment (docs: README.md, Configuration):'];
  for (const v of ENVIRONMENT) {
    lines.push(`  ${v.names.join(', ')}  (default: ${plain(v.default)})`);
    lines.push(`      ${plain(v.meaning)}`);
  }
  return lines.join('\n');
}

/** The defaults of `heapFlags` (config.ts parses the same variables with them). */
export const HEAP_DEFAULT_MB = { SCHED_HEAP_MB: 1024, SCHED_SEMI_SPACE_MB: 16 } as const;

/**
 * The V8 flags `sched serve` starts with (the CLI restarts the process with them before the service loads): each of
 * `SCHED_HEAP_MB` and `SCHED_SEMI_SPACE_MB` unless it is 0, not a whole number (the configuration refuses it then),
 * or its flag is already given on the command line or in NODE_OPTIONS.
 */
export function heapFlags(env: Record<string, string | undefined>, execArgv: readonly string[]): string[] {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map((f) => f.replace(/_/g, '-'));
  const flags: string[] = [];
  for (const [name, flag] of [
    ['SCHED_HEAP_MB', '--max-old-space-size'],
    ['SCHED_SEMI_SPACE_MB', '--max-semi-space-size'],
  ] as const) {
    const value = (env[name] ?? String(HEAP_DEFAULT_MB[name])).trim();
    if (!/^\d+$/.test(value) || Number(value) === 0) continue;
    if (given.some((f) => f === flag || f.startsWith(`${flag}=`))) continue;
    flags.push(`${flag}=${Number(value)}`);
  }
  return flags;
}
