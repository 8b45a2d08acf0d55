import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Code says why in its own words: a comment (or a line the code prints) that cites an issue, a review's finding or a
// section of the interface's document points a reader at something outside this repository, which they cannot
// open. A row of docs/api.md or a file here is the place to link instead.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FOLDERS = [
  'server/src',
  'server/console/src',
  'contract/src',
  'sdk/src',
  'cli/src',
  'bench',
  'scripts',
  'test',
];
const SKIPPED = new Set(['node_modules', 'dist', 'bundle', 'generated', '.tmp']);
const SOURCE = /\.(ts|tsx|mjs|cjs|js)$/;
/**
 * An issue's number (with or without `#`, one or several), a section or row of the interface's document, a review's
 * finding or commit, a finding's number (`P-` with its severity's letter), or a path into the reviews' folder.
 */
const CITATION =
  /\bissues? #?\d+|\bspec (row )?[A-Z]?\d+(\.\d+)?\b|§ ?\d|\breview [A-Z]\d+\b|\breview (of )?[0-9a-f]{7}\b|\bP-[HML]\d+\b|\breviews\//i;

function* sourceFiles(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

describe('code in its own words', () => {
  it('cites no issue, review finding or section of the interface document', () => {
    const found: string[] = [];
    for (const folder of FOLDERS)
      for (const file of sourceFiles(join(root, folder))) {
        if (file === fileURLToPath(import.meta.url)) continue;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (CITATION.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
          });
      }
    expect(found).toEqual([]);
  });

  it('would catch a citation', () => {
    // The samples of issues and sections hold `_` where the space goes, so that this file cites nothing either.
    const spaced = (line: string) => line.replace('_', ' ');
    for (const line of [
      spaced('// see issue_12'),
      spaced('// (issue_#26)'),
      spaced('// spec_4.2 says'),
      spaced('// (spec_row S19)'),
      '// Review M5:',
      '// §3',
      "it('... (review 188718b, P-M1)'",
      '// the security review of 188718b',
      '// (shared/reviews/security-c081757.md)',
    ])
      expect(CITATION.test(line), line).toBe(true);
    for (const line of [
      '// the issuer 12',
      spaced('// tissue_3'),
      '// a review of 5 rows',
      '// spec.ts',
      '// P-256 keys',
    ])
      expect(CITATION.test(line), line).toBe(false);
  });
});
