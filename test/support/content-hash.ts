import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The files at `path` under `root`: the file itself, or every file of the folder, as paths relative to `root`. */
function filesOf(root: string, path: string): string[] {
  try {
    return readdirSync(join(root, path), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(root, join(e.parentPath, e.name)))
      .sort();
  } catch {
    return [path];
  }
}

/**
 * A short hash of the files at `paths` under `root` (files, or folders taken whole): their names and their bytes. It
 * names what the tests build from them once and share (the migrated template database, the SDK's bundle), so a
 * change to any of them makes a new one.
 */
export function contentHash(root: string, paths: string[]): string {
  const hash = createHash('sha256');
  for (const file of paths.flatMap((p) => filesOf(root, p)))
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(root, file)));
  return hash.digest('hex').slice(0, 16);
}
