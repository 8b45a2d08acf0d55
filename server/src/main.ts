import type { MikroORM } from '@mikro-orm/postgresql';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildContext } from './compose/context.js';
import { openDatabases } from './compose/database.js';
import { Shutdown } from './compose/shutdown.js';
import type { Config, Role } from './config.js';
import type { Dispatcher } from './jobs/dispatcher.js';
import { usePlanLimits } from './domain/quota/plans.js';
import { createLogger } from './logger.js';
import type { Database } from './persistence/database.js';

export { type OpenDatabase, openDatabase } from './compose/database.js';

export interface RunningService {
  /** The listening address, when the role serves HTTP. */
  url: string | undefined;
  /** The public root of links (response pages, trigger URLs): SCHED_PUBLIC_URL, or the address actually bound. */
  publicUrl: string;
  config: Config;
  role: Role;
  database: Database;
  orm: MikroORM;
  logger: Logger;
  /** Drains: stop accepting, finish in-flight requests and jobs up to the deadline, close connections. */
  stop(): Promise<void>;
}

/**
 * Starts a process of `role`: the database handles (compose/database.ts), what both roles share
 * (compose/context.ts), then the API (compose/api.ts) and the worker (compose/worker.ts) as the role asks. Each part
 * registers its own close as it starts; `stop` runs them (compose/shutdown.ts), and so does a failed start.
 */
/** What a stop may take beyond the drain of in-flight work: closing pools, the queue, the LISTEN connection. */
const CLOSE_MARGIN_MS = 15_000;
/** A failed start finishes nothing; its closes only let go. */
const FAILED_START_CLOSE_MS = 10_000;

export async function startService(
  config: Config,
  role: Role,
  logger: Logger = createLogger(config.logLevel, 'sched', config.logFormat),
): Promise<RunningService> {
  // A self-hosted deployment's own plan table (SCHED_PLANS_FILE), before anything reads a limit.
  usePlanLimits(config.plans);
  const shutdown = new Shutdown();
  // With PORT=0 and no SCHED_PUBLIC_URL, links must carry the port actually bound: known once the API listens, and
  // read through this function rather than written into the configuration.
  let boundPublicUrl: string | undefined;
  const publicUrl = () => boundPublicUrl ?? config.publicUrl;
  let http: FastifyInstance | undefined;
  let dispatcher: Dispatcher | undefined;
  let db: Awaited<ReturnType<typeof openDatabases>>;
  try {
    db = await openDatabases(config, role, logger, shutdown);
    const ctx = await buildContext({ config, role, logger, db, publicUrl }, shutdown);
    const created = await ctx.accounts.ensureDefaultAccount();
    if (created) announceDefaultAccount(config, created.apiKey, logger);
    // Each role loads only its own half (the HTTP app and its pages; the triggers, channels and outgoing client).
    if (role !== 'worker') {
      const { startApi } = await import('./compose/api.js');
      const api = await startApi(ctx, shutdown, () => dispatcher);
      http = api.http;
      if (!config.publicUrlExplicit && api.port !== undefined)
        boundPublicUrl = `http://localhost:${api.port}`;
    }
    if (role !== 'api') {
      const { startWorker } = await import('./compose/worker.js');
      dispatcher = await startWorker(ctx, shutdown);
    }
  } catch (err) {
    await shutdown.run(false, { deadlineMs: FAILED_START_CLOSE_MS, log: logger }).catch(() => undefined);
    throw err;
  }

  const address = http?.server.address();
  const url =
    address && typeof address === 'object' ? `http://${hostForUrl(config.host)}:${address.port}` : undefined;
  let stopping: Promise<void> | undefined;
  return {
    url,
    publicUrl: publicUrl(),
    config,
    role,
    database: db.main,
    orm: db.orm,
    logger,
    stop() {
      // Past the drain (SCHED_SHUTDOWN_TIMEOUT_MS) only closes remain: a stop that outlives both names the step.
      stopping ??= shutdown.run(true, {
        deadlineMs: config.shutdownTimeoutMs + CLOSE_MARGIN_MS,
        log: logger,
      });
      return stopping;
    },
  };
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Keeps the first key in SCHED_DATA_DIR/credentials (mode 0600). It is printed only to a person at a terminal
 * running the embedded database; a container or a service manager sends stdout to a log pipeline, so there, and
 * with an external DATABASE_URL, only the file's path is printed (docs/security.md).
 */
function announceDefaultAccount(config: Config, apiKey: string, logger: Logger): void {
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, 'credentials');
  writeFileSync(file, `SCHED_API_URL=${config.publicUrl}\nSCHED_API_KEY=${apiKey}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  logger.info({ credentials: file }, 'created the default account (plan business)');
  const show = process.stdout.isTTY === true && config.databaseUrl === undefined;
  process.stdout.write(
    show
      ? `\nsched: created the default account. Its API key (shown once, also saved to ${file}):\n\n  ${apiKey}\n\n`
      : `\nsched: created the default account. Its API key is in ${file} (readable by this user only).\n\n`,
  );
}
