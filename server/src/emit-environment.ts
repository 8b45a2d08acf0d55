import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withEnvironmentTable } from './environment.js';

// `pnpm docs:env`: writes the README's Configuration table from server/src/environment.ts.
const readme = fileURLToPath(new URL('../../README.md', import.meta.url));
writeFileSync(readme, withEnvironmentTable(readFileSync(readme, 'utf8')));
console.log(`wrote the environment table of ${readme}`);
