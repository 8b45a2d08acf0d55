import { lstatSync, mkdirSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Node's compile cache keeps V8's compiled code of every module between starts, which spares a start most of its
 * compiling. It lives in the user's cache folder (`$XDG_CACHE_HOME/sched`, else `~/.cache/sched`), never in the
 * shared temporary folder Node would pick by default: code another account left there would run as sched. A folder
 * another account could change means no cache. `NODE_COMPILE_CACHE` (Node reads it itself) and
 * `NODE_DISABLE_COMPILE_CACHE` still decide first.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const base = env.XDG_CACHE_HOME || (home ? join(home, '.cache') : '');
  return base ? join(base, 'sched', 'node-compile-cache') : undefined;
}

/** A folder (not a link) of this user's that no other account can write to. */
function isPrivateFolder(path: string): boolean {
  const stat = lstatSync(path);
  const mine = process.getuid === undefined || stat.uid === process.getuid();
  return stat.isDirectory() && mine && (stat.mode & 0o022) === 0;
}

/** Turns the cache on in a private folder; answers the folder, or undefined when it stays off. */
export function enablePrivateCompileCache(
  env: NodeJS.ProcessEnv = process.env,
  enable: ((dir: string) => unknown) | undefined = nodeModule.enableCompileCache,
  home: string = safeHomedir(),
): string | undefined {
  if (!enable || env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const dir = compileCacheDir(env, home);
  if (dir === undefined) return undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The cache's folder, sched's above it and the cache base above that: none another account can change.
    if (![dir, dirname(dir), dirname(dirname(dir))].every(isPrivateFolder)) return undefined;
  } catch {
    return undefined;
  }
  enable(dir);
  return dir;
}

function safeHomedir(): string {
  try {
    return homedir();
  } catch {
    return '';
  }
}
