import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The verbs that load the server package, whose `engines` (not the CLI's) decide the Node.js they need. */
const SERVER_VERBS = new Set(['serve', 'migrate', 'accounts', 'admin', 'purge']);

/** Whether `version` (e.g. `v20.20.2`) satisfies a `>=X.Y[.Z]` range; anything else is taken as satisfied. */
export function satisfiesMinimum(version: string, range: string): boolean {
  const wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!wanted) return true;
  const have = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const need = Number(wanted[i + 1] ?? 0);
    const got = have[i] ?? 0;
    if (got !== need) return got > need;
  }
  return true;
}

/**
 * Before a server verb loads anything: on a Node.js older than the server package's `engines`, the message to
 * print instead of the crash deep inside a dependency that such a Node would otherwise give.
 */
export function serverNodeProblem(verb: string | undefined, version = process.version): string | undefined {
  if (verb === undefined || !SERVER_VERBS.has(verb)) return undefined;
  let range: string | undefined;
  try {
    const manifest = fileURLToPath(import.meta.resolve('@sched/server/package.json'));
    range = (JSON.parse(readFileSync(manifest, 'utf8')) as { engines?: { node?: string } }).engines?.node;
  } catch {
    return undefined; // no server package here: the verb itself says so
  }
  if (range === undefined || satisfiesMinimum(version, range)) return undefined;
  return `sched ${verb} needs Node.js ${range} (the server package's engines); this is Node.js ${version}. Install a newer Node.js (24 LTS is tested) and run it again.\n`;
}
