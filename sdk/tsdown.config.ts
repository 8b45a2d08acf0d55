import { defineConfig } from 'tsdown';

// The published package: one ES module with the contract bundled in (it is not published on its own), and one
// declaration file that inlines the contract's types. zod, @ts-rest/core and @noble/hashes stay dependencies.
export default defineConfig({
  entry: ['src/index.ts'],
  outDir: 'bundle',
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  dts: { resolve: ['@sched/contract'] },
  deps: { alwaysBundle: ['@sched/contract'] },
  clean: true,
});
