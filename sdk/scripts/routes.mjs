// Writes sdk/src/routes.ts: the method and path of every route of the contract, so that the SDK sends requests
// without bundling the contract's zod schemas (a browser app would otherwise carry every schema of the API).
// Run by `pnpm openapi` after a contract change; test/unit/sdk-routes.test.ts fails while the table is stale.
//
//   node sdk/scripts/routes.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = path.join(ROOT, 'sdk', 'src', 'routes.ts');
const { contract } = await import(pathToFileURL(path.join(ROOT, 'contract', 'dist', 'index.js')).href);

/** The table's source text: one line per route, `name: ['METHOD', '/path'],` under its router's name. */
function routeTable(router) {
  const lines = [
    '// Generated from the contract by sdk/scripts/routes.mjs (`pnpm openapi`); do not edit.',
    '// The method and path of each route: what the client needs at run time, without the schemas.',
    'export const routes = {',
  ];
  const walk = (node, indent) => {
    for (const [name, value] of Object.entries(node)) {
      if (typeof value.method === 'string' && typeof value.path === 'string') {
        lines.push(`${indent}${name}: ['${value.method}', '${value.path}'],`);
      } else {
        lines.push(`${indent}${name}: {`);
        walk(value, `${indent}  `);
        lines.push(`${indent}},`);
      }
    }
  };
  walk(router, '  ');
  lines.push('} as const;', '');
  return lines.join('\n');
}

const text = routeTable(contract);
if (process.argv.includes('--check')) {
  const current = readFileSync(OUT, 'utf8');
  if (current !== text) {
    console.error('sdk/src/routes.ts is stale: run `pnpm openapi` (or `node sdk/scripts/routes.mjs`)');
    process.exit(1);
  }
} else {
  writeFileSync(OUT, text);
}
