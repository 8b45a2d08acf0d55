import { defineConfig } from 'tsdown';

/*
 * The installable server package: the compiled modules one file each, in the layout of dist/ (files found beside
 * a module, such as the response page's stylesheet or the console's build, are found the same way), with the
 * contract compiled in (it is not published on its own). Every npm dependency stays a dependency.
 */
export default defineConfig({
  entry: [
    'src/**/*.ts',
    'src/**/*.tsx',
    '!src/**/*.test.ts',
    '!src/**/*.test.tsx',
    '!src/channels/testing.ts',
  ],
  unbundle: true,
  outDir: 'bundle',
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: false,
  // @ts-rest/fastify declares a peer fastify 4 (it runs on 5): compiled in, npm has no peer to warn about.
  deps: { alwaysBundle: [/^@sched\/contract/, '@ts-rest/fastify'] },
  fixedExtension: false,
  clean: true,
  logLevel: 'warn',
});
