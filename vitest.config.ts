import { defineConfig } from 'vitest/config';

// Unit tests sit beside each package's sources; test/e2e/ runs the service as a process, test/integration/
// runs use cases in-process.
// One embedded PostgreSQL serves the whole run; each test file gets its own database.
export default defineConfig({
  test: {
    include: ['{contract,server,sdk,cli}/src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // expect.poll's 1 s default is shorter than a browser page's reload and first fetch on two busy cores.
    expect: { poll: { timeout: 10_000 } },
  },
});
