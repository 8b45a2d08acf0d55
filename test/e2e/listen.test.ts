import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListenEvent } from '../../cli/src/commands/listen.js';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, cliBin, startServer, type TestServer } from '../support/server.js';

const SECRET = 'whsec_bGlzdGVuLXRlc3Qtc2VjcmV0LWZvci1zY2hlZA==';

/** `sched listen` as a user runs it: its events on stdout (one JSON a line), its address on stderr. */
function startListen(args: string[]): {
  child: ChildProcess;
  url: Promise<string>;
  events: ListenEvent[];
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [cliBin, 'listen', '--port', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: ListenEvent[] = [];
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as ListenEvent);
  });
  let err = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/[^,\s]+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`sched listen exited: ${err}`)));
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, url, events, exited };
}

// The development loop of `stripe listen`: sched delivers to `sched listen`, which shows each request, checks its
// signature and passes it on to the user's own endpoint, answering sched with what that endpoint answered.
describe('sched listen', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let app: Receiver;

  beforeAll(async () => {
    db = await createTestDatabase('listen');
    server = await startServer({ databaseUrl: db.url });
    app = await startReceiver();
  });
  afterAll(async () => {
    await app?.close();
    await server?.stop();
    await db?.drop();
  });

  it('prints each delivery with its signature verdict and forwards it; sched records what the endpoint answered', async () => {
    app.on('/app/hooks', { status: 202, body: 'taken' });
    const listen = startListen(['--secret', SECRET, '--forward-to', `${app.url}/app`, '--count', '2']);
    const url = await listen.url;

    const signed = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${url}/hooks?order=42`, body: { order: 42 } },
      webhook_secret: SECRET,
    });
    expect(signed.status).toBe(201);
    // Every account is made with a signing secret: without it, an action without a secret of its own is unsigned.
    expect((await api(server, server.apiKey, 'DELETE', '/v1/signing-secret')).status).toBe(204);
    const unsigned = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${url}/hooks`, body: { order: 43 } },
    });
    expect(unsigned.status).toBe(201);

    expect(await listen.exited).toBe(0);
    const byAction = new Map(listen.events.map((e) => [e.action_id, e]));
    expect(byAction.get(signed.body.data.id)).toMatchObject({
      method: 'POST',
      path: '/hooks?order=42',
      attempt: 1,
      signature: 'verified',
      body: '{"order":42}',
      status: 202,
      forwarded: { url: `${app.url}/app/hooks?order=42`, status: 202 },
    });
    expect(byAction.get(unsigned.body.data.id)).toMatchObject({ signature: 'unsigned', status: 202 });

    // The endpoint got the request as sched sent it: same body, the query, and the signature headers intact.
    const got = app.to('/app/hooks').find((r) => r.headers['x-sched-action-id'] === signed.body.data.id);
    expect(got?.url).toBe('/app/hooks?order=42');
    expect(got?.body).toBe('{"order":42}');
    expect(got?.headers['webhook-signature']).toMatch(/^v1,/);
    // And sched recorded the endpoint's answer, through the listener.
    await eventually(async () => {
      const view = await api(server, server.apiKey, 'GET', `/v1/actions/${signed.body.data.id}`);
      return (
        view.body.data.status === 'executed' && view.body.data.delivery_attempts?.[0]?.status_code === 202
      );
    }, 20_000);
  });

  it('without --forward-to answers --status; a signature made with another secret is reported invalid', async () => {
    const listen = startListen(['--secret', 'a-different-secret-0123', '--status', '503', '--count', '1']);
    const url = await listen.url;
    const created = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${url}/down` },
      webhook_secret: SECRET,
      max_attempts: 1,
    });
    expect(created.status).toBe(201);
    expect(await listen.exited).toBe(0);
    expect(listen.events).toHaveLength(1);
    expect(listen.events[0]).toMatchObject({
      action_id: created.body.data.id,
      signature: 'invalid',
      signature_reason: 'signature mismatch',
      status: 503,
    });
    expect(listen.events[0]?.forwarded).toBeUndefined();
    await eventually(async () => {
      const view = await api(server, server.apiKey, 'GET', `/v1/actions/${created.body.data.id}`);
      return view.body.data.status === 'failed' && view.body.data.delivery_attempts?.[0]?.status_code === 503;
    }, 20_000);
  });

  it('--verified-only answers 401 to what does not verify, unforwarded; a body over --max-body is a 413', async () => {
    app.on('/app/only', { status: 202, body: 'taken' });
    const listen = startListen([
      ...['--secret', SECRET, '--verified-only', '--max-body', '1000'],
      ...['--forward-to', `${app.url}/app`, '--count', '3'],
    ]);
    const url = await listen.url;
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/only`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    expect((await post('{"forged":true}')).status).toBe(401);
    expect((await post(JSON.stringify({ pad: 'x'.repeat(5000) }))).status).toBe(413);
    const signed = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${url}/only`, body: { order: 44 } },
      webhook_secret: SECRET,
    });
    expect(signed.status).toBe(201);
    expect(await listen.exited).toBe(0);
    expect(listen.events.map((e) => [e.status, e.refused ?? null, e.signature])).toEqual([
      [401, 'not verified', 'unsigned'],
      [413, 'body too large', 'not_checked'],
      [202, null, 'verified'],
    ]);
    // Only the verified request reached the endpoint.
    expect(app.to('/app/only').map((r) => r.body)).toEqual(['{"order":44}']);
  });

  it('refuses bad options before listening', async () => {
    for (const [args, message] of [
      [['--port', '70000'], '--port takes 0 to 65535'],
      [['--status', '99'], '--status takes an HTTP status from 200 to 599'],
      [['--forward-to', 'ftp://example.com/'], '--forward-to takes an http or https URL'],
      [['--verified-only'], '--verified-only needs --secret (or SCHED_WEBHOOK_SECRET)'],
    ] as const) {
      const listen = startListen([...args]);
      await expect(listen.url).rejects.toThrow(message);
      expect(await listen.exited).toBe(2);
    }
  });
});
