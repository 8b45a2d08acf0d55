import { defineConfig } from 'tsdown';

// The published package: an ES module and a CommonJS build (for `require` and `moduleResolution: node` projects),
// each with the contract bundled in (it is not published on its own) and a declaration file that inlines the
// contract's types. zod, @ts-rest/core and @noble/hashes stay dependencies.
export default defineConfig({
  entry: ['src/index.ts'],
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
