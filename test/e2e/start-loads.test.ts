import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { api, startServer, type TestServer } from '../support/server.js';

/** Packages a server needs only for one feature, each with the request that first needs it. */
const ON_FIRST_USE = {
  'date-holidays': '/date-holidays/',
  'the MCP SDK': '/@modelcontextprotocol/',
  'the OpenAPI builder': '/openapi3-ts/',
  mailparser: '/mailparser/',
  'smtp-server': '/smtp-server/',
} as const;
const HOOK_SECRET = 'a-hook-secret-of-the-test';

// What a start costs is mostly loading code: a package only one feature uses is loaded by that feature's first
// request. A resolve hook (module.registerHooks, given to the server through NODE_OPTIONS) writes down every module
// the server process resolves, `import` and `require` alike.
describe('a started server: what it loads, what its worker reads', () => {
  let db: TestDatabase;
  let server: TestServer;
  let log: string;

  const loaded = (name: keyof typeof ON_FIRST_USE) =>
    readFileSync(log, 'utf8')
      .split('\n')
      .some((url) => url.includes(ON_FIRST_USE[name]));

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sched-loads-'));
    log = join(dir, 'resolved.txt');
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
    return resolved;
  },
});
`,
    );
    writeFileSync(log, '');
    db = await createTestDatabase('start-loads');
    server = await startServer({
      databaseUrl: db.url,
      env: {
        NODE_OPTIONS: `--import ${pathToFileURL(hook).href}`,
        SCHED_INBOUND_EMAIL_SECRET: HOOK_SECRET,
        SCHED_INBOUND_EMAIL_DOMAIN: 'replies.example.com',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('a started server has loaded none of the packages of a feature it has not served', async () => {
    expect(readFileSync(log, 'utf8')).toContain('/fastify/');
    expect((await api(server, server.apiKey, 'GET', '/healthz')).status).toBe(200);
    for (const name of Object.keys(ON_FIRST_USE) as (keyof typeof ON_FIRST_USE)[])
      expect({ name, loaded: loaded(name) }).toEqual({ name, loaded: false });
  });

  it('each is loaded by the first request that needs it, and that request is answered', async () => {
    const document = await api(server, server.apiKey, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\.1/);
    expect(loaded('the OpenAPI builder')).toBe(true);

    const calendar = await api(server, server.apiKey, 'POST', '/v1/calendars', {
      name: 'US office',
      timezone: 'America/New_York',
      holidays: 'US',
    });
    expect(calendar.status).toBe(201);
    expect(loaded('date-holidays')).toBe(true);
    const days = await api(
      server,
      server.apiKey,
      'GET',
      `/v1/calendars/${calendar.body.data.id}/days?from=2027-07-01&to=2027-07-10`,
    );
    expect(days.status).toBe(200);
    expect(JSON.stringify(days.body)).toContain('2027-07-05');

    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'start-loads', version: '1' },
        },
      }),
    });
    expect(mcp.status).toBe(200);
    expect((await mcp.json()).result.serverInfo.name).toBe('sched');
    expect(loaded('the MCP SDK')).toBe(true);

    const mail = await fetch(`${server.url}/integrations/email/inbound`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HOOK_SECRET}`, 'content-type': 'message/rfc822' },
      body: 'From: someone@example.com\r\nTo: reply+nothing@replies.example.com\r\nSubject: Re: x\r\n\r\nyes\r\n',
    });
    expect(mail.status).toBeLessThan(500);
    expect(loaded('mailparser')).toBe(true);
  });

  // A worker reads its clock against the database's at start (then each minute) and publishes the difference.
  it("a running worker publishes its clock minus the database's, near zero on one host, and does not warn", async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const value = /^sched_clock_skew_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
    // NaN until the worker's first reading, taken as it starts.
    expect(Number.isFinite(Number(value))).toBe(true);
    // One host, one clock: the reading is the round trip's error at most (its resolution is a millisecond).
    expect(Math.abs(Number(value))).toBeLessThan(0.25);
    expect(server.output()).not.toMatch(/clock and the database's are apart/);
  });
});
