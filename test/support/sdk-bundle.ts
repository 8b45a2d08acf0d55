import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { contentHash } from './content-hash.js';
import { withSharedLock } from './database.js';
import { repoRoot } from './server.js';

const run = promisify(execFile);

/** What the SDK's published bundle is made from: its sources and the contract's, their configuration, the lockfile. */
const INPUTS = [
  'sdk/src',
  'contract/src',
  'sdk/tsdown.config.ts',
  'sdk/package.json',
  'sdk/tsconfig.json',
  'contract/package.json',
  'pnpm-lock.yaml',
];

/**
 * The folder of the SDK's published bundle (`tsdown` in sdk/: both formats and their declarations), built once for
 * a set of its inputs and shared by the files that need it: its declarations cost about 45 s of CPU, which two test
 * files paid each. Built under another name and renamed when complete, under an advisory lock of the test server, so
 * no file reads a half-written one; bundles of other inputs go when a new one is built.
 */
export async function builtSdkBundle(): Promise<string> {
  const cache = join(repoRoot, 'test', '.tmp');
  const name = `sdk-bundle-${contentHash(repoRoot, INPUTS)}`;
  const dir = join(cache, name);
  if (existsSync(dir)) return dir;
  return withSharedLock(inject('adminDatabaseUrl'), 'sched test sdk bundle', async () => {
    if (existsSync(dir)) return dir;
    mkdirSync(cache, { recursive: true });
    for (const old of readdirSync(cache).filter((f) => f.startsWith('sdk-bundle-')))
      rmSync(join(cache, old), { recursive: true, force: true });
    const building = `${dir}.building`;
    const bin = join(repoRoot, 'node_modules', '.bin');
    await run(join(bin, 'tsdown'), ['--out-dir', building, '--no-clean'], {
      cwd: join(repoRoot, 'sdk'),
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    renameSync(building, dir);
    return dir;
  });
}
