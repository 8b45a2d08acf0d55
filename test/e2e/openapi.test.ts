import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import createFetchClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderOpenApi } from '../../contract/src/document.js';
import type { paths } from '../generated/openapi.js';
import { launchBrowser, watchCsp } from '../support/browser.js';
import { createTestDatabase } from '../support/database.js';
import { repoRoot, startServer, type TestServer } from '../support/server.js';

const docPath = join(repoRoot, 'docs', 'openapi.json');
const committed = readFileSync(docPath, 'utf8');
const doc = JSON.parse(committed);

describe('the committed OpenAPI document', () => {
  it('is what the contract emits (run `pnpm openapi` when this fails)', () => {
    expect(committed).toBe(renderOpenApi());
  });

  it('validates as OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('has unique operationIds, named components and the error answers of every authenticated operation', () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths) as Record<string, any>[]) {
      for (const op of Object.values(item)) {
        ids.push(op.operationId);
        if (op.security.length > 0) {
          for (const status of ['401', '403', '422', '429']) expect(op.responses).toHaveProperty(status);
        }
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.components.schemas).toHaveProperty('Contact');
    expect(doc.components.schemas).toHaveProperty('ValidationError');
  });

  it('the openapi-fetch example of docs/clients.md type-checks as written (strict, NodeNext)', () => {
    const guide = readFileSync(join(repoRoot, 'docs', 'clients.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## openapi-typescript + openapi-fetch'));
    const example = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    // Under test/, so `openapi-fetch` and `@types/node` resolve from test/node_modules as from an app's.
    mkdirSync(join(repoRoot, 'test', '.tmp'), { recursive: true });
    const app = mkdtempSync(join(repoRoot, 'test', '.tmp', 'clients-'));
    mkdirSync(join(app, 'src'));
    // What `npx openapi-typescript openapi.json -o src/sched-api.ts` writes (the test above keeps it fresh).
    writeFileSync(
      join(app, 'src', 'sched-api.ts'),
      readFileSync(join(repoRoot, 'test', 'generated', 'openapi.ts')),
    );
    writeFileSync(join(app, 'src', 'main.ts'), `${example}\nexport {};\n`);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: ['node'],
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['src'],
      }),
    );
    writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const tsc = join(repoRoot, 'test', 'node_modules', '.bin', 'tsc');
    const run = spawnSync(tsc, ['-p', app], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('generated client types are fresh (openapi-typescript)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'oapi-')), 'openapi.ts');
    const bin = join(repoRoot, 'test', 'node_modules', '.bin', 'openapi-typescript');
    const run = spawnSync(bin, [docPath, '-o', out], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(
      readFileSync(join(repoRoot, 'test', 'generated', 'openapi.ts'), 'utf8'),
    );
  });
});

describe('a client generated from the document (openapi-fetch) against the running server', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

  /** Checks a body against the schema the document declares for that operation and status. */
  function expectMatchesDocument(path: string, method: string, status: number, body: unknown) {
    const response = doc.paths[path][method].responses[String(status)];
    expect(response, `${method} ${path} documents status ${status}`).toBeDefined();
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return expect(body ?? null).toBeFalsy();
    const validate = ajv.compile({ ...schema, components: doc.components });
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  }

  beforeAll(async () => {
    db = await createTestDatabase('openapi');
    server = await startServer({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('creates, reads, lists, updates and deletes a contact; every answer matches its documented schema', async () => {
    const client = createFetchClient<paths>({
      baseUrl: server.url,
      headers: { authorization: `Bearer ${server.apiKey}` },
    });

    const created = await client.POST('/v1/contacts', { body: { name: 'Doc', email: 'doc@example.com' } });
    expect(created.response.status).toBe(201);
    expectMatchesDocument('/v1/contacts', 'post', 201, created.data);
    const id = created.data!.data.id;

    const got = await client.GET('/v1/contacts/{id}', { params: { path: { id } } });
    expectMatchesDocument('/v1/contacts/{id}', 'get', 200, got.data);
    expect(got.data!.data.name).toBe('Doc');

    const list = await client.GET('/v1/contacts');
    expectMatchesDocument('/v1/contacts', 'get', 200, list.data);

    const updated = await client.PUT('/v1/contacts/{id}', {
      params: { path: { id } },
      body: { name: 'Doc 2' },
    });
    expectMatchesDocument('/v1/contacts/{id}', 'put', 200, updated.data);

    const invalid = await client.POST('/v1/contacts', { body: { name: 'X', email: 'nope' } });
    expect(invalid.response.status).toBe(422);
    expectMatchesDocument('/v1/contacts', 'post', 422, invalid.error);

    const deleted = await client.DELETE('/v1/contacts/{id}', { params: { path: { id } } });
    expect(deleted.response.status).toBe(204);
    const missing = await client.GET('/v1/contacts/{id}', { params: { path: { id } } });
    expect(missing.response.status).toBe(404);
    expectMatchesDocument('/v1/contacts/{id}', 'get', 404, missing.error);

    const anonymous = createFetchClient<paths>({ baseUrl: server.url });
    const denied = await anonymous.GET('/v1/contacts');
    expect(denied.response.status).toBe(401);
    expectMatchesDocument('/v1/contacts', 'get', 401, denied.error);
    expect(denied.response.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('serves the document at /openapi.json, naming a relative server without SCHED_PUBLIC_URL', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const served = (await res.json()) as Record<string, unknown> & { servers: unknown };
    expect(served.servers).toEqual([{ url: '/', description: 'This sched server' }]);
    expect({ ...served, servers: doc.servers }).toEqual(doc);
  });

  it('renders the interactive reference at /docs from this origin only, under a CSP with no inline code', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    const browser = await launchBrowser();
    if (!browser) return; // no chromium on this developer machine; CI has one and fails without it
    try {
      const page = await browser.newPage();
      const violations = await watchCsp(page);
      const foreign: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url());
      });
      await page.goto(`${server.url}/docs`);
      await page.getByText('Schedule an action').first().waitFor({ timeout: 20_000 });
      // Every operation and every callback (webhooks) is listed.
      const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].reduce(
        (n: number, item) => n + Object.keys(item as object).length,
        0,
      );
      expect(await page.locator('.opblock').count()).toBe(operations);
      expect(violations).toEqual([]);
      expect(foreign).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
