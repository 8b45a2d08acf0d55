import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No file in server/src grows past 400 lines: a longer one is doing two jobs and is split along its seams
// (docs/architecture.md). Migrations are written by MikroORM's migrator and are not counted.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'server', 'src');
const MAX_LINES = 400;
const GENERATED = /^persistence\/migrations\//;

/**
 * Files allowed past the limit, each with its reason; none of them is product code.
 */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  // A test file whose cases share one loopback receiver and its routes: split, each half would repeat them.
  'outbound/http-client.test.ts': 'outbound client tests',
};

function linesOf(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

function sizes(): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !/\.tsx?$/.test(e.name)) continue;
    const path = relative(src, join(e.parentPath, e.name)).split('\\').join('/');
    if (!GENERATED.test(path)) out.set(path, linesOf(join(src, path)));
  }
  return out;
}

describe(`files in server/src stay within ${MAX_LINES} lines`, () => {
  const all = sizes();

  it('reads the tree (the count is real)', () => {
    expect(all.size).toBeGreaterThan(300);
    expect(all.get('domain/action/effects.ts')).toBeGreaterThan(50);
  });

  it('no file but the listed exceptions is longer', () => {
    const over = [...all].filter(([path, n]) => n > MAX_LINES && !(path in EXCEPTIONS));
    expect(over.map(([path, n]) => `${path}: ${n} lines`)).toEqual([]);
  });
});
