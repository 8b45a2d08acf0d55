import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtSdkBundle } from '../support/sdk-bundle.js';
import { repoRoot } from '../support/server.js';

const run = promisify(execFile);

/** A user's TypeScript file: named types, the transport options, error codes, wait, iterators and keys. */
const CONSUMER = `
import {
  type Action, type ActionSummary, type ApiKey, type Chain, type DeliveryAttempt, type ErrorCode, type Template,
  type CallbackEvent, createClient, parseCallback, SchedApiError, SchedConnectionError,
} from '@sched/sdk';

export async function receive(request: Request): Promise<string> {
  const event: CallbackEvent = await parseCallback(request, ['new-secret', 'old-secret']);
  if (event.event === 'chain.completed') return String(event.payload.steps.length);
  if (event.event === 'action.failed') return event.payload.error_message ?? '';
  return event.id;
}

const sched = createClient({
  baseUrl: 'http://localhost:8080', apiKey: 'sk_sched_x', timeoutMs: 5_000, retry: { retries: 3 }, fetch,
});

export async function run(signal: AbortSignal): Promise<[Action, Chain, ApiKey[], Template[]]> {
  const created = await sched.actions.create(
    { idempotency_key: 'k', schedule: { wait: '1s' }, request: { url: 'https://example.com' } },
    { signal },
  );
  if (created.skipped) throw new Error(created.reason);
  const attempts: DeliveryAttempt[] = (await sched.actions.get(created.action.id)).delivery_attempts;
  const seen: ActionSummary[] = [];
  for await (const a of sched.actions.iterate({ status: 'failed' })) seen.push(a);
  const templates: Template[] = [];
  for await (const t of sched.templates.iterate()) templates.push(await sched.templates.get(t.id));
  try {
    await sched.keys.rotate('id', { grace_period: '1h' });
  } catch (e) {
    const code: ErrorCode | (string & {}) | undefined = e instanceof SchedApiError ? e.code : undefined;
    if (e instanceof SchedConnectionError && e.code === 'timeout') console.log(code, attempts.length);
  }
  // @ts-expect-error: statuses are a closed union, so a typo does not compile
  await sched.actions.wait(created.action.id, { until: 'done' });
  return [
    await sched.actions.wait(created.action.id, { until: ['executed', 'failed'] }),
    await sched.chains.wait('c'),
    await sched.keys.list(),
    templates,
  ];
}
`;

const LEGACY_CONSUMER = `
import { createClient, type Action } from '@sched/sdk';
export const get = (id: string): Promise<Action> =>
  createClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' }).actions.get(id);
`;

// The published declarations type-check in a strict project with skipLibCheck: false (the pinned ts-rest release
// candidate's own .d.ts do not against zod 4, so none of its types may appear in the SDK's).
describe('the SDK declarations', { timeout: 180_000 }, () => {
  it('compile a consumer under strict and skipLibCheck: false', async () => {
    const work = mkdtempSync(join(tmpdir(), 'sched-sdk-types-'));
    const bin = join(repoRoot, 'node_modules', '.bin');
    const out = await builtSdkBundle();
    const declarations = readFileSync(join(out, 'index.d.ts'), 'utf8');
    expect(declarations).not.toMatch(/@ts-rest/);
    expect(declarations).not.toMatch(/\bspec [0-9]/);

    const app = join(work, 'app');
    const pkgDir = join(app, 'node_modules', '@sched', 'sdk');
    mkdirSync(pkgDir, { recursive: true });
    cpSync(out, join(pkgDir, 'bundle'), { recursive: true });
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'sdk', 'package.json'), 'utf8'));
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ ...pkg, ...pkg.publishConfig }));
    symlinkSync(realpathSync(join(repoRoot, 'sdk', 'node_modules', 'zod')), join(app, 'node_modules', 'zod'));
    mkdirSync(join(app, 'src'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    writeFileSync(join(app, 'src', 'app.ts'), CONSUMER);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
          noEmit: true,
        },
        include: ['src'],
      }),
    );
    const tsc = (project: string) =>
      run(join(bin, 'tsc'), ['-p', project]).then(
        () => ({ code: 0, out: '' }),
        (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
      );
    expect(await tsc(app)).toEqual({ code: 0, out: '' });

    // A CommonJS project (no "type": "module"): `require` resolves the CommonJS build and its declarations. (Older
    // TypeScript's moduleResolution "node" reads the top-level `types`, the same file; TypeScript 7 has dropped it.)
    mkdirSync(join(app, 'legacy'));
    writeFileSync(join(app, 'legacy', 'package.json'), JSON.stringify({ type: 'commonjs' }));
    writeFileSync(join(app, 'legacy', 'legacy.ts'), LEGACY_CONSUMER);
    writeFileSync(
      join(app, 'tsconfig.cjs.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          module: 'node16',
          moduleResolution: 'node16',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
          noEmit: true,
        },
        files: ['legacy/legacy.ts'],
      }),
    );
    expect(await tsc(join(app, 'tsconfig.cjs.json'))).toEqual({ code: 0, out: '' });
    expect(readFileSync(join(out, 'index.cjs'), 'utf8')).toMatch(/exports\.createClient|createClient/);
  });
});
