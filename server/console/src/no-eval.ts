import { z } from 'zod';

// zod compiles object parsers with `new Function` when it can, and probes for it: under the console's CSP (no
// 'unsafe-eval') the probe alone is reported as a violation. Imported first, before any schema runs.
z.config({ jitless: true });
