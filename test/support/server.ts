import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';

export const repoRoot = resolve(import.meta.dirname, '..', '..');
export const cliBin = join(repoRoot, 'cli', 'dist', 'bin.js');

export interface TestServer {
  url: string;
  /** The default account's key, written by the server on first start. */
  apiKey: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  output(): string;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<number | null>;
  /** SIGKILL: the crash case. */
  kill(): Promise<void>;
}

/** Starts `sched serve` as a real subprocess on a random port against the given database. */
export async function startServer(opts: {
  databaseUrl: string;
  role?: 'all' | 'api' | 'worker';
  env?: Record<string, string>;
  dataDir?: string;
}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'sched-test-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: opts.databaseUrl,
    SCHED_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true',
    ...opts.env,
  };
  const child = spawn(process.execPath, [cliBin, 'serve', '--role', opts.role ?? 'all'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  let stopping = false;
  const exited = new Promise<number | null>((res) =>
    child.on('exit', (code, signal) => {
      // A server that ends before it is stopped (a crash, an OOM kill) says why, whatever the test then reports.
      if (!stopping && (code !== 0 || signal))
        process.stderr.write(
          `sched serve exited (code ${code}, signal ${signal}) before it was stopped:\n${out.slice(-6000)}\n`,
        );
      res(code);
    }),
  );
  const url = await new Promise<string>((res, rej) => {
    // Twice in many full runs a server stopped after creating its account; what its connections wait on says where.
    const timer = setTimeout(
      () =>
        void connectionsOf(opts.databaseUrl).then((activity) =>
          rej(new Error(`server did not start in 45 s:\n${out}\nits database's connections:\n${activity}`)),
        ),
      45_000,
    );
    const check = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(m[1]!);
      } else if (/ started\n/.test(out)) {
        clearTimeout(timer);
        res('');
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      rej(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  let apiKey = '';
  try {
    apiKey = /SCHED_API_KEY=(\S+)/.exec(readFileSync(join(dataDir, 'credentials'), 'utf8'))?.[1] ?? '';
  } catch {
    // Not the first start on this database: the caller brings its own key.
  }
  return {
    url,
    apiKey,
    dataDir,
    env,
    process: child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      stopping = true;
      child.kill('SIGTERM');
      // A stop that fails or drags on shows what the server said (its shutdown names the step it waits on).
      const slow = setTimeout(
        () => process.stderr.write(`sched serve still stopping after 20 s:\n${out.slice(-4000)}\n`),
        20_000,
      );
      const code = await exited;
      clearTimeout(slow);
      if (code !== 0) process.stderr.write(`sched serve stopped with ${code}:\n${out.slice(-4000)}\n`);
      return code;
    },
    async kill() {
      if (child.exitCode !== null) return;
      stopping = true;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** What the database's connections are doing (for a server that does not start). */
async function connectionsOf(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query(
      `select application_name, state, wait_event_type, wait_event, left(query, 160) as query
       from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return rows.map((r) => JSON.stringify(r)).join('\n');
  } catch (err) {
    return `(not read: ${String(err)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `sched` binary. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [cliBin, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('exit', (code) => res({ code, stdout, stderr }));
  });
}

/** Plain fetch with the Bearer header and JSON handling: the raw-HTTP way in. */
export async function api(
  server: { url: string },
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
