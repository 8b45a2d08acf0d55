import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileCacheDir, enablePrivateCompileCache } from './compile-cache.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
/** A cache base (as XDG_CACHE_HOME) inside a fresh folder, made with `mode`. */
function cacheBase(mode: number): string {
  const root = mkdtempSync(join(tmpdir(), 'sched-compile-cache-'));
  roots.push(root);
  const base = join(root, 'cache');
  mkdirSync(base);
  chmodSync(base, mode);
  return base;
}
function enableIn(env: NodeJS.ProcessEnv, home = '') {
  const enabled: string[] = [];
  const dir = enablePrivateCompileCache(env, (at) => enabled.push(at), home);
  return { dir, enabled };
}

describe.skipIf(process.platform === 'win32')("the compile cache, in this user's folder only", () => {
  it('is made owner-only under XDG_CACHE_HOME, else ~/.cache, and turned on there', () => {
    const base = cacheBase(0o700);
    const { dir, enabled } = enableIn({ XDG_CACHE_HOME: base });
    expect(dir).toBe(join(base, 'sched', 'node-compile-cache'));
    expect(enabled).toEqual([dir]);
    expect(statSync(dir!).mode & 0o777).toBe(0o700);
    expect(compileCacheDir({}, '/home/ada')).toBe('/home/ada/.cache/sched/node-compile-cache');
  });

  it('stays off where another account could write, or when Node is told otherwise', () => {
    expect(enableIn({ XDG_CACHE_HOME: cacheBase(0o777) })).toEqual({ dir: undefined, enabled: [] });
    const base = cacheBase(0o700);
    mkdirSync(join(base, 'sched'), { mode: 0o775 });
    chmodSync(join(base, 'sched'), 0o775);
    expect(enableIn({ XDG_CACHE_HOME: base })).toEqual({ dir: undefined, enabled: [] });
    const fine = cacheBase(0o700);
    expect(enableIn({ XDG_CACHE_HOME: fine, NODE_DISABLE_COMPILE_CACHE: '1' }).enabled).toEqual([]);
    // Node reads NODE_COMPILE_CACHE itself, before any of this runs.
    expect(enableIn({ XDG_CACHE_HOME: fine, NODE_COMPILE_CACHE: '/elsewhere' }).enabled).toEqual([]);
    expect(enableIn({}, '')).toEqual({ dir: undefined, enabled: [] });
  });
});
