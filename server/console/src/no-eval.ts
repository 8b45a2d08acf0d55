import { configureJitless } from '@sched/contract/jitless';

// No compiled zod parsers under the console's CSP (no 'unsafe-eval'). Imported first by main.tsx, so this runs
// before any schema of the contract is built.
configureJitless();
