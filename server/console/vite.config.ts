import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console: a Preact app built to static files with content-hashed names (docs/console.md). It is served by the
// service at /console with a CSP that allows only this origin's scripts and stylesheets, so nothing may be inlined.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill would be an inline script, which the CSP refuses; every browser the console supports has it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    sourcemap: false,
  },
});
