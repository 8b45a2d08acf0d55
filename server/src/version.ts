import { readFileSync } from 'node:fs';

/**
 * The server's release, from its package.json: one level above dist/ (a checkout) and bundle/ (an installed
 * package) alike. /healthz answers it and `sched --version` prints it beside the CLI's.
 */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
