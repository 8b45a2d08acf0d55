import { resolve } from 'node:path';
import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_EMAIL_FROM } from './channels/email.js';
import { type ChannelConfig, REQUIRED_VARS } from './channels/registry.js';
import { DEFAULT_TWILIO_API_URL } from './channels/sms.js';
import {
  ANSWER_ENV,
  answerEnvProblems,
  type InboundConfig,
  inboundConfig,
  slackAppConfig,
} from './config-answers.js';
import {
  destinationNetworkProblem,
  parseNetworks,
  type PrivateAccess,
} from './domain/destinations/policy.js';
import { DEFAULT_DOMAIN_LIMITS } from './domain/domains/rules.js';
import { HEAP_DEFAULT_MB } from './environment.js';
import { type PlanTable, readPlansFile } from './plans-file.js';
import { LOG_FORMATS, type LogFormat } from './log-format.js';
import { isDatabaseUrl } from './persistence/hosts.js';
import { parseCorsOrigins, parseTrustProxy, type TrustProxy } from './config-proxies.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveNumber = z.coerce.number().positive();

/** Every environment variable the service reads, parsed once at start. */
export const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  // One host, or libpq's list of hosts (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`).
  DATABASE_URL: z
    .string()
    .refine(isDatabaseUrl, 'must be a postgres:// URL, with one host or a comma-separated list of host:port')
    .optional(),
  // Reads that may lag (lists, the inbox, stats, the console, the audit export) on a streaming replica (app/reads.ts).
  SCHED_READ_DATABASE_URL: z.string().refine(isDatabaseUrl, 'must be a postgres:// URL').optional(),
  SCHED_READ_REPLICA_MAX_LAG_SECONDS: z.coerce.number().min(0).default(5),
  SCHED_READ_YOUR_WRITES_SECONDS: z.coerce.number().min(0).default(5),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  SCHED_PUBLIC_URL: z.url().optional(),
  SCHED_DATA_DIR: z.string().min(1).default('.sched'),
  SCHED_ALLOW_PRIVATE_DESTINATIONS: bool.default(false),
  SCHED_ALLOWED_PRIVATE_NETWORKS: z.string().optional(),
  SCHED_VALIDATE_RESPONSES: bool.optional(),
  SCHED_TIME_SCALE: positiveNumber.default(1),
  SCHED_RATE_LIMIT_FACTOR: positiveNumber.default(1),
  SCHED_METRICS_TOKEN: z.string().min(1).optional(),
  SCHED_METRICS_HOST_LABELS: bool.default(false),
  SCHED_DOCS: bool.optional(),
  SCHED_PLANS_FILE: z.string().min(1).optional(),
  SCHED_CORS_ORIGINS: z.string().min(1).optional(),
  // Read by server/src/tracing.ts and the OpenTelemetry exporter itself; checked here like every setting.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  SCHED_DOMAIN_DAY_LIMIT: z.coerce.number().int().min(0).default(DEFAULT_DOMAIN_LIMITS.perDay),
  SCHED_DOMAIN_MONTH_LIMIT: z.coerce.number().int().min(0).default(DEFAULT_DOMAIN_LIMITS.perMonth),
  SCHED_DNS_SERVERS: z
    .string()
    .refine(
      (v) => v.split(',').every((s) => s.trim() === '' || isDnsServer(s.trim())),
      'must list IP addresses, each optionally with :port (IPv6 as [addr]:port), separated by commas',
    )
    .optional(),
  // Delivery attempts in flight per worker process, in total and per account, so one account's burst cannot take
  // every slot (docs/actions.md).
  SCHED_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).default(256),
  SCHED_DELIVERY_ACCOUNT_CONCURRENCY: z.coerce.number().int().min(1).default(128),
  SCHED_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  // V8's heap for `sched serve` (environment.ts `heapFlags`, applied by the CLI before the service loads).
  SCHED_HEAP_MB: z.coerce.number().int().min(0).default(HEAP_DEFAULT_MB.SCHED_HEAP_MB),
  SCHED_SEMI_SPACE_MB: z.coerce.number().int().min(0).default(HEAP_DEFAULT_MB.SCHED_SEMI_SPACE_MB),
  // Bounds on waiting for the database (docs/operations-database.md): a request answers 503 within them.
  SCHED_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(3_000),
  SCHED_DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5_000),
  // How long a pg-boss job may stay active before pg-boss retries it (a worker died holding it).
  SCHED_JOB_EXPIRE_SECONDS: z.coerce.number().int().min(1).default(300),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SCHED_LOG_FORMAT: z.enum(LOG_FORMATS).default('auto'),
  // The HTTP edge (docs/security.md): which proxy to believe for client IPs, and inbound timeouts.
  SCHED_TRUST_PROXY: z.string().min(1).optional(),
  SCHED_HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  SCHED_HTTP_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(120_000),
  SCHED_HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(72_000),
  /*
   * Notification channels (docs/approvals.md). A channel left unset keeps its messages in the outbox.
   * - SCHED_SMTP_URL: `smtp://user:pass@host:587` connects in clear and upgrades with STARTTLS when offered;
   *   `smtps://user:pass@host:465` uses TLS from the first byte. User and password are percent-encoded;
   *   nodemailer options may follow as a query (`?pool=true`).
   * - SCHED_EMAIL_FROM: the From header, `Name <address>` or a bare address.
   * - SCHED_TWILIO_* (the three credentials all or none): the account SID (`AC...`, also the Basic auth user), the
   *   auth token (or an API key secret paired with that SID), and the sender: an E.164 number, an alphanumeric
   *   sender id or a Messaging Service SID (`MG...`). SCHED_TWILIO_API_URL: any endpoint speaking the same
   *   `/2010-04-01/Accounts/{SID}/Messages.json` resource.
   * - SCHED_VAPID_* (all three or none; `npx web-push generate-vapid-keys` makes a key pair): base64url P-256
   *   public key (65 bytes, uncompressed, browsers subscribe with it), private key (32 bytes), and a contact for
   *   push services (`mailto:` or `https:`).
   * Slack and Teams need no variable: each notification channel resource carries its own incoming webhook URL.
   */
  SCHED_SMTP_URL: z
    .string()
    .trim()
    .refine(
      (v) => hasProtocol(v, ['smtp:', 'smtps:'], true),
      'must be a URL such as smtp://user:pass@host:587 or smtps://user:pass@host:465',
    )
    .optional(),
  SCHED_EMAIL_FROM: z
    .string()
    .trim()
    .regex(/[^\s<>@]+@[^\s<>@]+/, 'must contain an email address')
    .default(DEFAULT_EMAIL_FROM),
  SCHED_TWILIO_ACCOUNT_SID: z.string().trim().optional(),
  SCHED_TWILIO_AUTH_TOKEN: z.string().trim().optional(),
  SCHED_TWILIO_FROM: z.string().trim().optional(),
  SCHED_TWILIO_API_URL: z
    .string()
    .trim()
    .transform((v) => v.replace(/\/+$/, ''))
    .refine((v) => hasProtocol(v, ['https:', 'http:']), 'must be an http(s) URL')
    .default(DEFAULT_TWILIO_API_URL),
  SCHED_VAPID_PUBLIC_KEY: z
    .string()
    .trim()
    .refine(
      (v) => isBase64Url(v) && isP256PublicKey(Buffer.from(v, 'base64url')),
      'must be a base64url P-256 public key (65 bytes, uncompressed)',
    )
    .optional(),
  SCHED_VAPID_PRIVATE_KEY: z
    .string()
    .trim()
    .refine(
      (v) => isBase64Url(v) && Buffer.from(v, 'base64url').length === 32,
      'must be a base64url P-256 private key (32 bytes)',
    )
    .optional(),
  SCHED_VAPID_SUBJECT: z
    .string()
    .trim()
    .refine((v) => hasProtocol(v, ['mailto:', 'https:']), 'must be a mailto: address or an https: URL')
    .optional(),
  // Answers from where the message is: Slack app mode and replies to approval emails (config-answers.ts).
  ...ANSWER_ENV,
});

/** A channel's credentials come all or none: one line naming the missing ones when only some are set. */
function missingOfGroup(env: Record<string, unknown>, vars: readonly string[], what: string): string[] {
  const missing = vars.filter((name) => env[name] === undefined);
  return missing.length > 0 && missing.length < vars.length
    ? [`${missing.join(', ')}: required when any ${what} is set`]
    : [];
}

function hasProtocol(value: string, protocols: string[], needsHost = false): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && (!needsHost || url.hostname !== '');
  } catch {
    return false;
  }
}

function isBase64Url(value: string): boolean {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value);
}

function isP256PublicKey(key: Buffer): boolean {
  return key.length === 65 && key[0] === 0x04;
}

/** `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53`: what `dns.Resolver#setServers` takes (addresses, not names). */
function isDnsServer(entry: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) return isIP(bracketed[1]!) === 6 && validPort(bracketed[2]);
  if (isIP(entry) !== 0) return true;
  const [host, port, ...rest] = entry.split(':');
  return rest.length === 0 && isIP(host!) === 4 && validPort(port);
}

function validPort(port: string | undefined): boolean {
  return port === undefined || (/^\d{1,5}$/.test(port) && Number(port) > 0 && Number(port) < 65536);
}

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  env: string;
  databaseUrl: string | undefined;
  /** A streaming replica for reads that may lag, its lag bound, and how long an account's writes pin its reads. */
  readReplica: { url: string; maxLagSeconds: number; readYourWritesSeconds: number } | undefined;
  port: number;
  host: string;
  publicUrl: string;
  /** false when SCHED_PUBLIC_URL was not set: the URL is then derived from the listening port. */
  publicUrlExplicit: boolean;
  dataDir: string;
  /**
   * Non-public addresses destinations may reach: every one with SCHED_ALLOW_PRIVATE_DESTINATIONS (development), the
   * networks SCHED_ALLOWED_PRIVATE_NETWORKS lists (production's internal services), else none.
   */
  allowPrivateDestinations: PrivateAccess;
  /** Every API response checked against the contract (a 500 when off it): on unless NODE_ENV=production. */
  validateResponses: boolean;
  timeScale: number;
  rateLimitFactor: number;
  metricsToken: string | undefined;
  /** Per-host gauges on /metrics (the top hosts by held deliveries): off by default, for bounded cardinality. */
  metricsHostLabels: boolean;
  /** Swagger UI at `/docs` (SCHED_DOCS; off by default with NODE_ENV=production). */
  docs: boolean;
  shutdownTimeoutMs: number;
  /**
   * How long a pooled connection is waited for (pool queue and connect together), and the statement_timeout of
   * request and worker connections (0: none). Migrations and pg-boss maintenance run without the latter.
   */
  databaseTimeouts: { connectMs: number; statementMs: number };
  /** pg-boss's expiry of an active job (set when a queue is created). */
  jobExpireSeconds: number;
  /** Caps on delivery attempts in flight in one worker process: in total and per account. */
  deliveryConcurrency: { total: number; perAccount: number };
  /** Actions a UTC day and month to one unverified destination hostname. */
  domainLimits: { perDay: number; perMonth: number };
  /** Resolvers for domain verification (`host` or `host:port`); empty: the system's. */
  dnsServers: string[];
  logLevel: string;
  /** `auto`: readable lines at a terminal, JSON elsewhere (log-format.ts). */
  logFormat: LogFormat;
  /** Fastify's `trustProxy`: false (default), a hop count, or the proxies' addresses and CIDRs. */
  trustProxy: TrustProxy;
  /** Whole-request receive limit (slow bodies); 0 turns it off. */
  httpRequestTimeoutMs: number;
  /** Idle socket limit; 0 turns it off. */
  httpConnectionTimeoutMs: number;
  httpKeepAliveTimeoutMs: number;
  /** Notification channel settings; a channel left out keeps its messages in the outbox. */
  channels: ChannelConfig;
  /** Approve by replying (docs/approvals.md); `domain` null: approval emails carry no reply address. */
  inbound: InboundConfig;
  /** Browser origins allowed to call /v1 (SCHED_CORS_ORIGINS); empty: CORS off. */
  corsOrigins: string[];
  /** SCHED_PLANS_FILE's overrides of the plan table; null: the defaults (docs/self-hosting.md). */
  plans: PlanTable | null;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; the error names each offending variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // A blank variable counts as unset.
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''),
  );
  const parsed = EnvSchema.safeParse(cleaned);
  const lines = [
    ...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)),
    ...missingOfGroup(cleaned, REQUIRED_VARS.sms, 'SCHED_TWILIO_* credential'),
    ...missingOfGroup(cleaned, REQUIRED_VARS.push, 'SCHED_VAPID_* variable'),
    ...answerEnvProblems(cleaned, missingOfGroup),
  ];
  if (!parsed.success || lines.length > 0) {
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && e.SCHED_TIME_SCALE !== 1) {
    throw new ConfigError('invalid configuration:\n  SCHED_TIME_SCALE: must be 1 when NODE_ENV=production');
  }
  if (e.NODE_ENV === 'production' && e.SCHED_ALLOW_PRIVATE_DESTINATIONS) {
    throw new ConfigError(
      'invalid configuration:\n  SCHED_ALLOW_PRIVATE_DESTINATIONS: must be false when NODE_ENV=production (it disables the SSRF guard)',
    );
  }
  if (e.SCHED_METRICS_HOST_LABELS && e.SCHED_METRICS_TOKEN === undefined) {
    // Per-host labels name every tenant's destinations; /metrics without a token is public.
    throw new ConfigError(
      "invalid configuration:\n  SCHED_METRICS_HOST_LABELS: needs SCHED_METRICS_TOKEN (host labels name every account's destinations)",
    );
  }
  const corsOrigins = parseCorsOrigins(e.SCHED_CORS_ORIGINS);
  if (!Array.isArray(corsOrigins))
    throw new ConfigError(`invalid configuration:\n  SCHED_CORS_ORIGINS: ${corsOrigins.error}`);
  const plans = e.SCHED_PLANS_FILE ? readPlansFile(e.SCHED_PLANS_FILE) : { table: null };
  if ('errors' in plans) throw new ConfigError(`invalid configuration:\n  ${plans.errors.join('\n  ')}`);
  const trustProxy = parseTrustProxy(e.SCHED_TRUST_PROXY);
  if (typeof trustProxy === 'object' && !Array.isArray(trustProxy)) {
    throw new ConfigError(`invalid configuration:\n  SCHED_TRUST_PROXY: ${trustProxy.error}`);
  }
  const allowedNetworks = parseNetworks(e.SCHED_ALLOWED_PRIVATE_NETWORKS ?? '');
  const networksProblem =
    'error' in allowedNetworks
      ? allowedNetworks.error
      : allowedNetworks.networks.map(destinationNetworkProblem).find((p) => p !== null);
  if (networksProblem || 'error' in allowedNetworks) {
    throw new ConfigError(`invalid configuration:\n  SCHED_ALLOWED_PRIVATE_NETWORKS: ${networksProblem}`);
  }
  const publicUrl = (e.SCHED_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    env: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    readReplica: e.SCHED_READ_DATABASE_URL
      ? {
          url: e.SCHED_READ_DATABASE_URL,
          maxLagSeconds: e.SCHED_READ_REPLICA_MAX_LAG_SECONDS,
          readYourWritesSeconds: e.SCHED_READ_YOUR_WRITES_SECONDS,
        }
      : undefined,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    publicUrlExplicit: e.SCHED_PUBLIC_URL !== undefined,
    dataDir: resolve(e.SCHED_DATA_DIR),
    allowPrivateDestinations:
      e.SCHED_ALLOW_PRIVATE_DESTINATIONS || (allowedNetworks.networks.length > 0 && allowedNetworks),
    validateResponses: e.SCHED_VALIDATE_RESPONSES ?? e.NODE_ENV !== 'production',
    timeScale: e.SCHED_TIME_SCALE,
    rateLimitFactor: e.SCHED_RATE_LIMIT_FACTOR,
    metricsToken: e.SCHED_METRICS_TOKEN,
    metricsHostLabels: e.SCHED_METRICS_HOST_LABELS,
    docs: e.SCHED_DOCS ?? e.NODE_ENV !== 'production',
    shutdownTimeoutMs: e.SCHED_SHUTDOWN_TIMEOUT_MS,
    jobExpireSeconds: e.SCHED_JOB_EXPIRE_SECONDS,
    databaseTimeouts: {
      connectMs: e.SCHED_DB_CONNECT_TIMEOUT_MS,
      statementMs: e.SCHED_DB_STATEMENT_TIMEOUT_MS,
    },
    deliveryConcurrency: {
      total: e.SCHED_DELIVERY_CONCURRENCY,
      perAccount: e.SCHED_DELIVERY_ACCOUNT_CONCURRENCY,
    },
    domainLimits: { perDay: e.SCHED_DOMAIN_DAY_LIMIT, perMonth: e.SCHED_DOMAIN_MONTH_LIMIT },
    dnsServers: (e.SCHED_DNS_SERVERS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    logLevel: e.LOG_LEVEL,
    logFormat: e.SCHED_LOG_FORMAT,
    trustProxy,
    httpRequestTimeoutMs: e.SCHED_HTTP_REQUEST_TIMEOUT_MS,
    httpConnectionTimeoutMs: e.SCHED_HTTP_CONNECTION_TIMEOUT_MS,
    httpKeepAliveTimeoutMs: e.SCHED_HTTP_KEEP_ALIVE_TIMEOUT_MS,
    channels: channelConfig(e),
    inbound: inboundConfig(e),
    plans: plans.table,
    corsOrigins,
  };
}

function channelConfig(e: z.output<typeof EnvSchema>): ChannelConfig {
  const config: ChannelConfig = {};
  if (e.SCHED_SMTP_URL !== undefined) config.email = { smtpUrl: e.SCHED_SMTP_URL, from: e.SCHED_EMAIL_FROM };
  // Groups are complete or absent here: loadConfig refused partial ones.
  if (
    e.SCHED_TWILIO_ACCOUNT_SID !== undefined &&
    e.SCHED_TWILIO_AUTH_TOKEN !== undefined &&
    e.SCHED_TWILIO_FROM !== undefined
  ) {
    config.sms = {
      accountSid: e.SCHED_TWILIO_ACCOUNT_SID,
      authToken: e.SCHED_TWILIO_AUTH_TOKEN,
      from: e.SCHED_TWILIO_FROM,
      apiUrl: e.SCHED_TWILIO_API_URL,
    };
  }
  if (
    e.SCHED_VAPID_PUBLIC_KEY !== undefined &&
    e.SCHED_VAPID_PRIVATE_KEY !== undefined &&
    e.SCHED_VAPID_SUBJECT !== undefined
  ) {
    config.push = {
      publicKey: e.SCHED_VAPID_PUBLIC_KEY,
      privateKey: e.SCHED_VAPID_PRIVATE_KEY,
      subject: e.SCHED_VAPID_SUBJECT,
    };
  }
  const slackApp = slackAppConfig(e);
  if (slackApp) config.slackApp = slackApp;
  return config;
}
