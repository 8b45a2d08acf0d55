import { z } from 'zod';

/**
 * Turns off zod's compiled parsers for this process or page. zod compiles object parsers with `new Function` when it
 * can, and probes for it when a schema is built: under a CSP without 'unsafe-eval' (the console's) the probe alone is
 * reported as a violation. A subpath of its own (`@sched/contract/jitless`) that builds no schema, so a page can call
 * it before the contract's schemas are evaluated.
 */
export function configureJitless(): void {
  z.config({ jitless: true });
}
