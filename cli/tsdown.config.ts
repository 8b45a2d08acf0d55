import { defineConfig } from 'tsdown';

// The installed CLI: one executable module with the SDK and the contract bundled in (neither is published on its
// own). The server package stays outside: only the admin verbs import it, and only when it is there.
export default defineConfig({
  entry: ['src/bin.ts'],
  outDir: 'bundle',
  format: 'esm',
  platform: 'node',
  target: 'node18',
  dts: false,
  deps: { alwaysBundle: ['@sched/sdk', '@sched/contract'], neverBundle: ['@sched/server'] },
  fixedExtension: false,
  clean: true,
});
