import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/architecture.md stays true: every file it names exists. A path is read from the repository root, from
// server/src (where the map's short paths start), or from docs/; a bare file name must name a file under server/src or contract/src.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const FILE = /(?:^|[\s`(])((?:[\w@.-]+\/)*[\w.-]+\.(?:tsx?|mjs|cjs|md|json))(?=[\s`),.;:]|$)/gm;
const BASES = ['', 'server/src', 'server', 'docs'];

function filesUnder(dir: string): Set<string> {
  const names = new Set<string>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) names.add(e.name);
  return names;
}

describe('docs/architecture.md', () => {
  const named = [...new Set([...doc.matchAll(FILE)].map((m) => m[1]!))];
  const serverFiles = new Set([
    ...filesUnder(join(root, 'server', 'src')),
    ...filesUnder(join(root, 'contract', 'src')),
  ]);

  it('names files (the map is read from the code)', () => {
    expect(named.length).toBeGreaterThan(100);
    expect(named).toContain('server/src/domain/action/effects.ts');
  });

  it('names only files that exist', () => {
    const missing = named.filter((n) =>
      n.includes('/')
        ? !BASES.some((b) => existsSync(join(root, b, n)))
        : !serverFiles.has(basename(n)) && !existsSync(join(root, n)) && !existsSync(join(root, 'docs', n)),
    );
    expect(missing).toEqual([]);
  });
});
