import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Role } from '@sched/server';
import type { Command } from 'commander';
import { UsageError } from '../runtime.js';
import { serverModule } from '../server-package.js';

const ROLES: Role[] = ['all', 'api', 'worker'];

export function configureServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the service: the HTTP API, the workers, or both')
    .option('--role <role>', 'all | api | worker', 'all')
    .option('--port <port>', 'listen port (overrides PORT)')
    .option('--host <host>', 'listen address (overrides HOST)')
    .addHelpText('after', () => `\n${serverEnvironmentHelp()}`)
    .action(async (opts: { role: string; port?: string; host?: string }) => {
      if (!ROLES.includes(opts.role as Role))
        throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      const launcher = watchLauncher();
      const { createLogger, loadConfig, startService } = await serverModule();
      const env = { ...process.env };
      if (opts.port) env.PORT = opts.port;
      if (opts.host) env.HOST = opts.host;
      const config = loadConfig(env);
      const logger = createLogger(config.logLevel, 'sched', config.logFormat);
      const service = await startService(config, opts.role as Role, logger);
      if (service.url) {
        process.stdout.write(
          `sched ${opts.role} listening on ${service.url} (public URL ${service.publicUrl})\n${startBanner(service.publicUrl, config.dataDir, config.docs)}`,
        );
      } else {
        process.stdout.write(`sched ${opts.role} started\n`);
      }
      let signals = 0;
      const shutdown = (signal: string) => {
        signals += 1;
        if (signals > 1) process.exit(130);
        logger.info({ signal }, 'draining');
        service.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
      launcher.onGone(() => {
        logger.warn('the launcher is gone: stopping as on SIGTERM');
        shutdown('launcher gone');
      });
    });
}

/** Where a newcomer goes next: the console, the API reference, and the file holding the first key (when there). */
export function startBanner(publicUrl: string, dataDir: string, docs: boolean, exists = existsSync): string {
  const credentials = join(dataDir, 'credentials');
  return [
    `  console        ${publicUrl}/console`,
    ...(docs ? [`  API reference  ${publicUrl}/docs`] : []),
    ...(exists(credentials) ? [`  API key        in ${credentials}`] : []),
    '',
  ].join('\n');
}

/** How often a server started by a launcher checks that the launcher still lives. */
const LAUNCHER_POLL_MS = 250;

/**
 * A server started by a launcher (`npm start`: scripts/bootstrap.mjs, which sets SCHED_LAUNCHER_PID) must not
 * outlive it: a launcher killed by SIGKILL passes no signal on, but the server is then re-parented, which a check of
 * its parent pid every 250 ms notices. Watched from the start, so a launcher gone while the server was still starting
 * stops it once it is up. The pid is read once and removed, so the embedded PostgreSQL never inherits it.
 */
function watchLauncher(): { onGone(stop: () => void): void } {
  const launcher = Number(process.env.SCHED_LAUNCHER_PID);
  delete process.env.SCHED_LAUNCHER_PID;
  if (!Number.isInteger(launcher) || launcher <= 0) return { onGone() {} };
  let listener: (() => void) | undefined;
  let gone = false;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    gone = true;
    listener?.();
  }, LAUNCHER_POLL_MS);
  timer.unref();
  return {
    onGone(stop) {
      if (gone) stop();
      else listener = stop;
    },
  };
}

/**
 * The server's table of environment variables (the README's too). Read synchronously, for commander's help: the
 * module imports nothing, and Node >= 22.12 (which the server needs) loads ES modules through require.
 */
function serverEnvironmentHelp(): string {
  try {
    const require = createRequire(import.meta.url);
    return (
      require('@sched/server/environment') as typeof import('@sched/server/environment')
    ).environmentHelp();
  } catch {
    return 'Environment: see README.md, Configuration (the server package is not installed here).';
  }
}
