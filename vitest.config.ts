import { defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/support/sequencer.js';

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
    // Three files at a time on two cores: many files mostly wait (a minute's boundary, a retry's backoff, a quiet
    // hour's end), and with two at a time such a file left a core idle. A full run on two cores: 1,444 s with 2,
    // 1,219 s with 3 (with the cheaper start-up of the same change).
    maxWorkers: 3,
    sequence: { sequencer: LongFilesFirst },
    // expect.poll's 1 s default is shorter than a browser page's reload and first fetch on two busy cores.
    expect: { poll: { timeout: 10_000 } },
  },
});
