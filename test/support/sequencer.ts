import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take one to three minutes (an npm install of the packed packages, the benchmark's smoke run,
 * workers killed and restarted, quiet hours that are real minutes), in the order they start. Without a cache of
 * earlier runs' durations (a fresh clone, as CI has), vitest starts the largest files first, and these, some of them
 * short files, started late and ran alone at the run's end: a minute or two with a core idle. The two that mostly
 * wait go beside the two that use a core.
 */
const LONG_FILES = [
  'test/e2e/install.test.ts',
  'test/e2e/quiet-hours.test.ts',
  'test/e2e/bench-smoke.test.ts',
  'test/e2e/platform.test.ts',
  'test/e2e/worker-kills.test.ts',
  'test/e2e/console-panels.test.ts',
  'test/e2e/approvals.test.ts',
  'server/src/persistence/embedded-postgres.test.ts',
];

export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = LONG_FILES.findIndex((file) => spec.moduleId.endsWith(file));
      return i < 0 ? LONG_FILES.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
