import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The layering rules of .dependency-cruiser.cjs fire: a small tree laid out like the repository, with stand-ins for
// kysely, pg-boss and pg under node_modules (where the real ones resolve, under dist/ or lib/), is cruised with the
// repository's own configuration. Each breaking import is reported under its rule; the allowed ones are not.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const depcruise = join(root, 'test', 'node_modules', '.bin', 'depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

const files: Record<string, string> = {
  // Stand-ins for the packages, resolved as the real ones are (a dist/ or lib/ entry point).
  'node_modules/kysely/package.json': JSON.stringify({ name: 'kysely', main: 'dist/index.js' }),
  'node_modules/kysely/dist/index.js': 'export const sql = 1;\n',
  'node_modules/pg-boss/package.json': JSON.stringify({ name: 'pg-boss', main: 'dist/index.js' }),
  'node_modules/pg-boss/dist/index.js': 'export class PgBoss {}\n',
  'node_modules/pg/package.json': JSON.stringify({ name: 'pg', main: 'lib/index.js' }),
  'node_modules/pg/lib/index.js': 'export default {};\n',
  'tsconfig.base.json': JSON.stringify({
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' },
  }),

  // Allowed: persistence talks SQL, the queue talks pg-boss, app uses a port, an adapter implements one.
  'server/src/persistence/rows.ts':
    "import { sql } from 'kysely';\nimport pg from 'pg';\nexport const rows = [sql, pg];\n",
  'server/src/jobs/queue.ts': "import { PgBoss } from 'pg-boss';\nexport const boss = PgBoss;\n",
  'server/src/app/ports.ts': 'export interface Outbound { send(): void }\n',
  'server/src/outbound/client.ts':
    "import type { Outbound } from '../app/ports.js';\nexport const client: Outbound = { send() {} };\n",
  'server/src/channels/email.ts': 'export const email = 1;\n',
  'server/src/domain/rule.ts': 'export const rule = 1;\n',

  // Broken, one import per rule.
  'server/src/app/sends-http.ts':
    "import { client } from '../outbound/client.js';\nexport const x = client;\n",
  'server/src/app/sends-mail.ts': "import { email } from '../channels/email.js';\nexport const x = email;\n",
  'server/src/app/runs-jobs.ts': "import { boss } from '../jobs/queue.js';\nexport const x = boss;\n",
  'server/src/jobs/leaks-sql.ts': "import { sql } from 'kysely';\nexport const x = sql;\n",
  'server/src/http/leaks-pg.ts': "import pg from 'pg';\nexport const x = pg;\n",
  'server/src/jobs/second-queue.ts': "import { PgBoss } from 'pg-boss';\nexport const x = PgBoss;\n",
  'server/src/http/reads-rows.ts': "import { rows } from '../persistence/rows.js';\nexport const x = rows;\n",
  'server/src/domain/impure.ts': "import { rows } from '../persistence/rows.js';\nexport const x = rows;\n",
  'server/src/app/approvals/gate.ts': 'export const gates = 1;\n',
  'server/src/app/actions/create.ts':
    "import { gates } from '../approvals/gate.js';\nexport const x = gates;\n",
  'server/src/app/approvals/outcomes.ts':
    "import { x } from '../actions/create.js';\nexport const granted = x;\n",
  'server/src/channels/knows-app.ts': "import { rule } from '../domain/rule.js';\nexport const x = rule;\n",

  // Features plug in: the composition root lists them, each mounts its handlers, none knows another.
  'server/src/http/handlers/things.ts': 'export const things = 1;\n',
  'server/src/features/feature.ts': 'export interface Feature { name: string }\n',
  'server/src/features/things.ts':
    "import type { Feature } from './feature.js';\nimport { things } from '../http/handlers/things.js';\nexport const f: Feature = { name: String(things) };\n",
  'server/src/features/index.ts': "import { f } from './things.js';\nexport const FEATURES = [f];\n",
  'server/src/compose/api.ts':
    "import { FEATURES } from '../features/index.js';\nexport const x = FEATURES;\n",
  'server/src/features/knows-another.ts': "import { f } from './things.js';\nexport const x = f;\n",
  'server/src/http/names-a-feature.ts': "import { f } from '../features/things.js';\nexport const x = f;\n",
  'server/src/http/mounts-a-handler.ts':
    "import { things } from './handlers/things.js';\nexport const x = things;\n",

  // The console: its own files, the contract (the state tables under its machines subpath), the SDK and preact, and
  // nothing else: not the server's domain/ (the tables moved to the contract), not zod, not the contract's sources.
  'node_modules/@sched/contract/package.json': JSON.stringify({
    name: '@sched/contract',
    exports: { '.': './dist/index.js', './machines': './dist/machines/index.js' },
  }),
  'node_modules/@sched/contract/dist/index.js': 'export const STATES = [];\n',
  'node_modules/@sched/contract/dist/machines/index.js': 'export const TABLE = [];\n',
  'node_modules/@sched/sdk/package.json': JSON.stringify({ name: '@sched/sdk', main: 'dist/index.js' }),
  'node_modules/@sched/sdk/dist/index.js': 'export const createClient = () => ({});\n',
  'node_modules/preact/package.json': JSON.stringify({ name: 'preact', main: 'dist/preact.js' }),
  'node_modules/preact/dist/preact.js': 'export const h = () => null;\n',
  'node_modules/zod/package.json': JSON.stringify({ name: 'zod', main: 'index.js' }),
  'node_modules/zod/index.js': 'export const z = {};\n',
  'contract/src/machines/action.ts': 'export const TABLE = [];\n',
  'server/console/src/allowed.ts':
    "import { TABLE } from '@sched/contract/machines';\nimport { STATES } from '@sched/contract';\nimport { createClient } from '@sched/sdk';\nimport { h } from 'preact';\nimport { x as y } from './reads-nothing.js';\nexport const x = [TABLE, STATES, createClient, h, y];\n",
  'server/console/src/reads-nothing.ts': 'export const x = 1;\n',
  'server/console/src/reads-domain.ts':
    "import { rule } from '../../src/domain/rule.js';\nexport const x = rule;\n",
  'server/console/src/reads-app.ts':
    "import type { Outbound } from '../../src/app/ports.js';\nexport const x: Outbound | null = null;\n",
  'server/console/src/reads-sql.ts': "import { sql } from 'kysely';\nexport const x = sql;\n",
  'server/console/src/reads-zod.ts': "import { z } from 'zod';\nexport const x = z;\n",
  'server/console/src/reads-contract-source.ts':
    "import { TABLE } from '../../../contract/src/machines/action.js';\nexport const x = TABLE;\n",
  'server/console/src/reads-node.ts': "import { join } from 'node:path';\nexport const x = join;\n",
};

describe('dependency rules (.dependency-cruiser.cjs) fire on a fixture tree', () => {
  let dir: string;
  let violations: Violation[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sched-rules-'));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    // The repository's rules and options, cruised from the fixture's root.
    await writeFile(
      join(dir, 'rules.cjs'),
      `module.exports = require(${JSON.stringify(join(root, '.dependency-cruiser.cjs'))});\n`,
    );
    const out = await promisify(execFile)(
      depcruise,
      ['--config', 'rules.cjs', '--output-type', 'json', 'server/src', 'server/console/src'],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    violations = (JSON.parse(out.stdout) as { summary: { violations: Violation[] } }).summary.violations;
  }, 60_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const fired = (from: string) =>
    violations
      .filter((v) => v.from === (from.startsWith('server/') ? from : `server/src/${from}`))
      .map((v) => v.rule.name)
      .sort();

  it('app/ imports neither outbound/, channels/ nor jobs/', () => {
    expect(fired('app/sends-http.ts')).toEqual(['app-has-no-adapters']);
    expect(fired('app/sends-mail.ts')).toEqual(['app-has-no-adapters']);
    expect(fired('app/runs-jobs.ts')).toEqual(['app-has-no-transport']);
  });

  it('app/actions/ never imports app/approvals/ (approvals build on the create core, not the other way)', () => {
    expect(fired('app/actions/create.ts')).toEqual(['actions-never-import-approvals']);
    expect(fired('app/approvals/outcomes.ts')).toEqual([]);
  });

  it('kysely and pg are seen under node_modules, and only persistence/ may import them', () => {
    expect(fired('jobs/leaks-sql.ts')).toEqual(['only-persistence-talks-sql']);
    expect(fired('http/leaks-pg.ts')).toEqual(['only-persistence-talks-sql']);
    expect(fired('persistence/rows.ts')).toEqual([]);
  });

  it('pg-boss is seen, and only jobs/queue.ts may import it', () => {
    expect(fired('jobs/second-queue.ts')).toEqual(['only-the-queue-talks-pg-boss']);
    expect(fired('jobs/queue.ts')).toEqual([]);
  });

  it('http/ does not reach persistence/; domain/ stays pure; channels know their interface only', () => {
    expect(fired('http/reads-rows.ts')).toEqual(['http-calls-app-not-persistence']);
    expect(fired('domain/impure.ts')).toEqual(['domain-is-pure']);
    expect(fired('channels/knows-app.ts')).toEqual(['channels-know-only-their-interface']);
  });

  it('features plug in: only the composition root names one, none imports another, only they mount handlers', () => {
    expect(fired('http/names-a-feature.ts')).toEqual(['features-plug-in']);
    expect(fired('features/knows-another.ts')).toEqual(['features-stand-alone']);
    expect(fired('http/mounts-a-handler.ts')).toEqual(['routes-live-in-features']);
    expect(fired('features/things.ts')).toEqual([]);
    expect(fired('features/index.ts')).toEqual([]);
    expect(fired('compose/api.ts')).toEqual([]);
  });

  it('the console imports only the contract, the SDK and preact (and its own files)', () => {
    for (const file of ['domain', 'app', 'sql', 'zod', 'contract-source', 'node'])
      expect(fired(`server/console/src/reads-${file}.ts`), file).toEqual([
        'console-imports-only-the-contract-and-sdk',
      ]);
    expect(fired('server/console/src/allowed.ts')).toEqual([]);
    expect(fired('server/console/src/reads-nothing.ts')).toEqual([]);
  });

  it('allowed imports report nothing', () => {
    expect(fired('outbound/client.ts')).toEqual([]);
    expect(fired('app/ports.ts')).toEqual([]);
  });
});
