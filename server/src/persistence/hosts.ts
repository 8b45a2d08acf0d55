import pg from 'pg';

/**
 * libpq's multi-host DATABASE_URL (`postgres://u:p@h1:5432,h2:5432/db?target_session_attrs=read-write`), which
 * node-postgres does not understand: one place picks the host, and every connection the service opens (MikroORM's
 * pools, pg-boss's pool and LISTEN connection, our LISTEN connections, the availability probe) takes its settings
 * from `connectionConfig`. A single-host URL passes through untouched.
 *
 * A new connection goes to the last host found writable; once connected (read-write or primary asked) it checks
 * the session is writable, and when it is not (a primary demoted by a failover) it fails with a connection fault
 * (a 503 upstream) and the next connection looks for the writable host again, trying each in order.
 */

export interface HostPort {
  host: string;
  port: number;
}

export interface MultiHostUrl {
  hosts: HostPort[];
  /** libpq's target_session_attrs: `read-write` and `primary` need a writable session; `any` takes the first. */
  needsWritable: boolean;
  /** The URL with the first host in place of the list and target_session_attrs removed (for parsers of one host). */
  firstHostUrl: string;
  user: string;
  password: string | undefined;
  database: string;
  params: URLSearchParams;
}

const MULTI_HOST = /^(postgres(?:ql)?:\/\/)([^@/]*@)?([^/?#]*)(.*)$/;

/** The parts of a multi-host URL, or undefined for a URL naming one host (or none). */
export function parseMultiHostUrl(url: string): MultiHostUrl | undefined {
  const m = MULTI_HOST.exec(url);
  if (!m || !m[3]!.includes(',')) return undefined;
  const [, scheme, auth = '', hostList, rest = ''] = m;
  const hosts = hostList!.split(',').map((h): HostPort => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(h);
    if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 5432) };
    const [host, port] = h.split(':');
    if (!host) throw new Error(`DATABASE_URL: an empty host in ${hostList}`);
    return { host, port: Number(port ?? 5432) };
  });
  if (hosts.some((h) => !Number.isInteger(h.port) || h.port <= 0 || h.port > 65535))
    throw new Error(`DATABASE_URL: a bad port in ${hostList}`);
  const first = hosts[0]!;
  const parsed = new URL(
    `${scheme}${auth}${first.host.includes(':') ? `[${first.host}]` : first.host}:${first.port}${rest}`,
  );
  const attrs = parsed.searchParams.get('target_session_attrs') ?? 'any';
  if (!['any', 'read-write', 'primary'].includes(attrs))
    throw new Error(
      `DATABASE_URL: target_session_attrs=${attrs} is not supported (any, read-write, primary)`,
    );
  parsed.searchParams.delete('target_session_attrs');
  return {
    hosts,
    needsWritable: attrs !== 'any',
    firstHostUrl: parsed.toString(),
    user: decodeURIComponent(parsed.username),
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username),
    params: parsed.searchParams,
  };
}

/** Whether `url` is a database URL the service can use (one host, or libpq's list of hosts). */
export function isDatabaseUrl(url: string): boolean {
  try {
    if (parseMultiHostUrl(url)) return true;
    const u = new URL(url);
    return u.protocol === 'postgres:' || u.protocol === 'postgresql:';
  } catch {
    return false;
  }
}

/** Sets a query parameter (when absent) on a one-host or multi-host URL. */
export function withUrlParam(url: string, name: string, value: string): string {
  const m = MULTI_HOST.exec(url);
  if (!m || !m[3]!.includes(',')) {
    const u = new URL(url);
    if (!u.searchParams.has(name)) u.searchParams.set(name, value);
    return u.toString();
  }
  // Only the part after the host list is a URL path and query; the host list stays as written.
  const tail = new URL(`postgres://h${m[4] ?? ''}`);
  if (!tail.searchParams.has(name)) tail.searchParams.set(name, value);
  return `${m[1]}${m[2] ?? ''}${m[3]}${tail.pathname}${tail.search}`;
}

/** A pg error the availability tracker maps to an outage (503) while no writable host is found. */
function noWritableHost(detail: string): Error {
  return Object.assign(new Error(`no writable database host: ${detail}`), { code: '08001' });
}

/** The host selection of one multi-host URL, shared by every connection made from it. */
class HostSelector {
  /** The last host found to fit; new connections go there first. */
  current: HostPort;
  /** True until a host is found, and after the current one failed. */
  private stale = true;
  private locating: Promise<HostPort> | undefined;

  constructor(readonly spec: MultiHostUrl) {
    this.current = spec.hosts[0]!;
  }

  /** Forgets the current host after it failed or turned read-only; the next connection looks again. */
  invalidate(failed: HostPort): void {
    if (failed.host === this.current.host && failed.port === this.current.port) this.stale = true;
  }

  /** The host for a new connection: the current one, or (after a failure) the first in order that fits. */
  async target(connectTimeoutMs: number): Promise<HostPort> {
    if (!this.stale) return this.current;
    this.locating ??= this.locate(connectTimeoutMs).finally(() => {
      this.locating = undefined;
    });
    return this.locating;
  }

  private async locate(connectTimeoutMs: number): Promise<HostPort> {
    const failures: string[] = [];
    for (const host of this.spec.hosts) {
      const client = new pg.Client({
        ...baseConfig(this.spec),
        host: host.host,
        port: host.port,
        connectionTimeoutMillis: connectTimeoutMs,
        // A host mid-promotion must not hold the look-up: each probe is bounded, connect and query.
        statement_timeout: connectTimeoutMs,
        query_timeout: connectTimeoutMs,
        application_name: 'sched-host-selection',
      });
      client.on('error', () => {});
      try {
        await client.connect();
        if (!this.spec.needsWritable || !(await isReadOnly(client))) {
          this.current = host;
          this.stale = false;
          return host;
        }
        failures.push(`${host.host}:${host.port} is read-only`);
      } catch (err) {
        failures.push(`${host.host}:${host.port}: ${(err as Error).message}`);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw noWritableHost(failures.join('; '));
  }
}

async function isReadOnly(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ read_only: boolean }>(
    "select pg_is_in_recovery() or current_setting('transaction_read_only') = 'on' as read_only",
  );
  return rows[0]?.read_only === true;
}

function baseConfig(spec: MultiHostUrl): pg.ClientConfig {
  const sslmode = spec.params.get('sslmode');
  return {
    user: spec.user,
    database: spec.database,
    ...(spec.password !== undefined ? { password: spec.password } : {}),
    ...(spec.params.get('application_name')
      ? { application_name: spec.params.get('application_name')! }
      : {}),
    // As node-postgres reads sslmode for one host: `disable` none, `no-verify` unverified, any other verified TLS.
    ...(sslmode && sslmode !== 'disable'
      ? { ssl: sslmode === 'no-verify' ? { rejectUnauthorized: false } : true }
      : {}),
  };
}

const selectors = new Map<string, HostSelector>();
const clientClasses = new WeakMap<HostSelector, Map<typeof pg.Client, typeof pg.Client>>();

/** A pg.Client class (derived from `base`) whose connections go to the selected host and check it still fits. */
function hostAwareClient(selector: HostSelector, base: typeof pg.Client): typeof pg.Client {
  const byBase = clientClasses.get(selector) ?? new Map<typeof pg.Client, typeof pg.Client>();
  clientClasses.set(selector, byBase);
  const known = byBase.get(base);
  if (known) return known;
  const plainConnect = pg.Client.prototype.connect as unknown as (this: pg.Client) => Promise<unknown>;
  class HostAwareClient extends base {
    // biome-ignore lint/suspicious/noExplicitAny: pg.Client's constructor takes a config or a connection string
    constructor(...args: any[]) {
      super(...args);
      // A connection the server ends while no query is on it and before a pool has put its own listener on it (a
      // failover's "terminating connection due to administrator command", say, during the read-only check) would
      // otherwise be an unhandled 'error' event, which ends the process. The pool and the next query see it dead.
      this.on('error', () => {});
    }

    // pg's overloads: a promise of the client, or a node-style callback (pg-pool's way).
    // biome-ignore lint/suspicious/noExplicitAny: both overloads of pg.Client.connect in one signature
    override connect(callback?: any): any {
      const done = this.connectToSelected().then(() => this);
      if (!callback) return done;
      done.then(
        (client) => callback(null, client),
        (err: Error) => callback(err),
      );
      return undefined;
    }

    private async connectToSelected(): Promise<void> {
      const self = this as unknown as {
        host: string;
        port: number;
        connectionParameters: { host: string; port: number };
        connection: { stream: { destroyed: boolean } };
        _connectionTimeoutMillis?: number;
      };
      const target = await selector.target(self._connectionTimeoutMillis || 5_000);
      // pg-pool gives up on a connection that takes too long by destroying its socket and waiting for the connect
      // callback: when that happened while the host was being looked for, the callback must still come, now.
      if (self.connection.stream.destroyed)
        throw new Error('Connection terminated due to connection timeout');
      self.host = self.connectionParameters.host = target.host;
      self.port = self.connectionParameters.port = target.port;
      try {
        await plainConnect.call(this);
      } catch (err) {
        selector.invalidate(target);
        throw err;
      }
      if (selector.spec.needsWritable && (await isReadOnly(this))) {
        selector.invalidate(target);
        await this.end().catch(() => undefined);
        throw noWritableHost(`${target.host}:${target.port} turned read-only`);
      }
    }
  }
  byBase.set(base, HostAwareClient);
  return HostAwareClient;
}

/**
 * The settings for a pg.Client or pg.Pool connecting to `url`: spread them into the config (pg-boss and pg-pool
 * take `Client`); `Client` derives from `base` when the caller has its own client class. For a single-host URL,
 * just the connection string.
 */
export function connectionConfig(
  url: string,
  base: typeof pg.Client = pg.Client,
): pg.ClientConfig & { Client: typeof pg.Client } {
  const spec = parseMultiHostUrl(url);
  if (!spec) return { connectionString: url, Client: base };
  const s = selectors.get(url) ?? new HostSelector(spec);
  selectors.set(url, s);
  const config = { ...baseConfig(spec), Client: hostAwareClient(s, base) } as pg.ClientConfig & {
    Client: typeof pg.Client;
  };
  // Read when a client is made (a spread copies the values then): a plain pg.Client made from these settings
  // (pg-boss's LISTEN connection) goes to the host found writable last.
  Object.defineProperty(config, 'host', { enumerable: true, get: () => s.current.host });
  Object.defineProperty(config, 'port', { enumerable: true, get: () => s.current.port });
  return config;
}

/** The URL for parsers of one host (MikroORM's options): the first host; connections go through `Client`. */
export function firstHostUrl(url: string): string {
  return parseMultiHostUrl(url)?.firstHostUrl ?? url;
}
