import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApi } from './document.js';

// `pnpm openapi`: writes the committed document; a test fails when it is stale.
const target = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
writeFileSync(target, renderOpenApi());
console.log(`wrote ${target}`);
