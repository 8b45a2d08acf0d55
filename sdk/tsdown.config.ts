import { defineConfig } from 'tsdown';

// The published package: the client and its agent helpers (`@sched/sdk/agents`), each an ES module and a CommonJS build (for `require` and `moduleResolution: node` projects),
// each with the contract bundled in (it is not published on its own) and a declaration file that inlines the
// contract's types. At run time the contract is only its route table (src/routes.ts) and the signature
// verifier, so neither zod nor @ts-rest/core is imported: zod stays a dependency for the declarations' types,
// @noble/hashes for the verifier's HMAC.
export default defineConfig({
  entry: ['src/index.ts', 'src/agents.ts'],
  outDir: 'bundle',
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  dts: { resolve: ['@sched/contract'] },
  deps: { alwaysBundle: ['@sched/contract'] },
  clean: true,
  // Every module here is pure: a type-only use of the contract must not leave `import "@ts-rest/core"` in the
  // declarations (its types do not check against zod 4 under skipLibCheck: false).
  treeshake: { moduleSideEffects: false },
});
