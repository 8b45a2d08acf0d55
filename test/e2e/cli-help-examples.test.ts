import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/src/program.js';
import { createTestDatabase } from '../support/database.js';
import { cliBin, startServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
type Command = ReturnType<typeof buildProgram>;

/** Every `$ sched ...` line of every command's --help, continuation lines joined, exactly as printed. */
function helpExamples(): string[] {
  const examples: string[] = [];
  const visit = (command: Command) => {
    let text = '';
    command.configureOutput({ writeOut: (s) => (text += s), writeErr: () => undefined });
    command.outputHelp();
    const joined = text.replace(/\\\n\s*/g, '');
    for (const match of joined.matchAll(/^\s*\$ (.+)$/gm)) examples.push(match[1]!.trim());
    for (const sub of command.commands) visit(sub);
  };
  visit(buildProgram());
  return examples;
}

const examples = helpExamples();

describe('the --help examples run as printed against a server', { timeout: 120_000 }, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  const work = mkdtempSync(join(tmpdir(), 'sched-help-'));

  beforeAll(async () => {
    db = await createTestDatabase('help_examples');
    server = await startServer({ databaseUrl: db.url });
    // What the examples name: a `sched` on PATH, a file to attach, a chain definition, a secret in the environment.
    writeFileSync(join(work, 'sched'), `#!/bin/sh\nexec "${process.execPath}" "${cliBin}" "$@"\n`);
    chmodSync(join(work, 'sched'), 0o755);
    writeFileSync(join(work, 'notes.pdf'), '%PDF-1.4\n% release notes\n');
    writeFileSync(
      join(work, 'chain.json'),
      JSON.stringify({
        name: 'help example',
        steps: [
          { type: 'http_call', name: 'first', url: 'https://example.com/first' },
          { type: 'delay', name: 'pause', delay: '1h' },
        ],
      }),
    );
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('finds the examples of actions, approvals and chains', () => {
    expect(examples.filter((e) => e.startsWith('sched actions create')).length).toBeGreaterThanOrEqual(4);
    expect(examples.some((e) => e.startsWith('sched approvals create'))).toBe(true);
    expect(examples.some((e) => e.includes('sched chains create'))).toBe(true);
  });

  it.each(examples)('%s', async (example) => {
    const result = await run('sh', ['-c', example], {
      cwd: work,
      env: {
        ...process.env,
        PATH: `${work}${delimiter}${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
        SCHED_API_URL: server.url,
        SCHED_API_KEY: server.apiKey,
        DEPLOY_SECRET: 'whsec_ZGVwbG95LXNlY3JldC1mb3ItdGhlLWhlbHAtZXhhbXBsZQ==',
        XDG_CONFIG_HOME: join(work, 'config'),
      },
      timeout: 60_000,
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
