import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createOutboundClient,
  DEFAULT_USER_AGENT,
  DestinationBlockedError,
  guardedConnector,
} from './http-client.js';
import type { OutboundRequest } from '../app/ports.js';
import { classifyError } from '../domain/delivery/error-class.js';
import { parseNetworks, type PrivateAccess } from '../domain/destinations/policy.js';
import type { OutboundClient } from './http-client.js';

/** A loopback receiver that counts TCP connections, so a test can prove nothing reached it. */
interface Receiver {
  port: number;
  connections: number;
  close(): Promise<void>;
}

async function startReceiver(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  const receiver = {
    port: 0,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket: Socket) => {
    receiver.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

function routes(req: IncomingMessage, res: ServerResponse, body: string): void {
  switch (req.url?.split('?')[0]) {
    case '/ok':
      res.writeHead(200, { 'content-type': 'text/plain', 'x-multi': ['a', 'b'] }).end('hello');
      return;
    case '/echo':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
      return;
    case '/fail':
      res.writeHead(500).end('boom');
      return;
    case '/redirect':
      res.writeHead(302, { location: '/ok' }).end();
      return;
    case '/huge': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 32; i++) res.write(chunk);
      res.end();
      return;
    }
    case '/exact':
      res.writeHead(200).end('y'.repeat(1000));
      return;
    case '/multibyte':
      res.writeHead(200).end('\u00e9\u00e9\u00e9');
      return;
    case '/slow-headers':
      // Never answers; the client's timeout must end the exchange.
      return;
    case '/slow-body':
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      return;
    default:
      res.writeHead(404).end();
  }
}

/** A resolver that answers every name with the given addresses, recording what was asked. */
function fixedLookup(addresses: string[], asked: string[] = []): LookupFunction {
  return (hostname, options, callback) => {
    asked.push(hostname);
    const answers: LookupAddress[] = addresses.map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
    const first = answers[0];
    if (options.all) callback(null, answers);
    else if (first !== undefined) callback(null, first.address, first.family);
  };
}

function request(url: string, extra: Partial<OutboundRequest> = {}): OutboundRequest {
  return { url, method: 'GET', headers: {}, timeoutMs: 5_000, maxResponseBytes: 4_096, ...extra };
}

let receiver: Receiver;
let refusedPort: number;

beforeAll(async () => {
  receiver = await startReceiver(routes);
  // A port that was just listened on and closed refuses connections.
  const closed = await startReceiver(routes);
  refusedPort = closed.port;
  await closed.close();
});

afterAll(async () => {
  await receiver.close();
});

beforeEach(() => {
  receiver.connections = 0;
});

describe('with private destinations allowed', () => {
  let client: OutboundClient;
  let base: string;

  beforeAll(() => {
    client = createOutboundClient({ allowPrivate: true });
    base = `http://127.0.0.1:${receiver.port}`;
  });

  afterAll(async () => {
    await client.close();
  });

  it('returns status, headers, body and the connected address of a 200', async () => {
    const result = await client.send(request(`${base}/ok`));
    expect(result).toMatchObject({
      kind: 'response',
      status: 200,
      bodyExcerpt: 'hello',
      bodyTruncated: false,
    });
    if (result.kind !== 'response') throw new Error('expected a response');
    expect(result.headers['content-type']).toBe('text/plain');
    expect(result.headers['x-multi']).toBe('a, b');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('sends method, body, caller headers and the default user agent', async () => {
    const result = await client.send(
      request(`${base}/echo?q=1`, {
        method: 'post',
        headers: { 'Content-Type': 'application/json', 'X-Custom': 'v' },
        body: '{"a":1}',
      }),
    );
    if (result.kind !== 'response') throw new Error(`expected a response, got ${result.kind}`);
    const echoed = JSON.parse(result.bodyExcerpt) as {
      method: string;
      url: string;
      headers: Record<string, string>;
      body: string;
    };
    expect(echoed.method).toBe('POST');
    expect(echoed.url).toBe('/echo?q=1');
    expect(echoed.body).toBe('{"a":1}');
    expect(echoed.headers['content-type']).toBe('application/json');
    expect(echoed.headers['x-custom']).toBe('v');
    expect(echoed.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
  });

  it('keeps a caller user agent and drops headers the client manages', async () => {
    const result = await client.send(
      request(`${base}/echo`, {
        method: 'POST',
        body: 'abc',
        headers: {
          'User-Agent': 'mine/1',
          Host: 'evil.example',
          'Transfer-Encoding': 'chunked',
          Connection: 'close',
        },
      }),
    );
    if (result.kind !== 'response') throw new Error(`expected a response, got ${result.kind}`);
    const echoed = JSON.parse(result.bodyExcerpt) as { headers: Record<string, string>; body: string };
    expect(echoed.headers['user-agent']).toBe('mine/1');
    expect(echoed.headers.host).toBe(`127.0.0.1:${receiver.port}`);
    expect(echoed.headers['transfer-encoding']).toBeUndefined();
    expect(echoed.headers['content-length']).toBe('3');
    expect(echoed.body).toBe('abc');
  });

  it('returns a 500 as a response', async () => {
    expect(await client.send(request(`${base}/fail`))).toMatchObject({
      kind: 'response',
      status: 500,
      bodyExcerpt: 'boom',
    });
  });

  it('does not follow a redirect', async () => {
    const result = await client.send(request(`${base}/redirect`));
    expect(result).toMatchObject({ kind: 'response', status: 302 });
    if (result.kind === 'response') expect(result.headers.location).toBe('/ok');
  });

  it('times out when no headers arrive', async () => {
    const result = await client.send(request(`${base}/slow-headers`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ kind: 'timeout', message: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('times out when the body stalls, the timeout covering the whole exchange', async () => {
    const result = await client.send(request(`${base}/slow-body`, { timeoutMs: 300 }));
    expect(result.kind).toBe('timeout');
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('reports a refused connection', async () => {
    const result = await client.send(request(`http://127.0.0.1:${refusedPort}/`));
    expect(result.kind).toBe('connection');
    if (result.kind === 'connection') expect(result.message).toContain('ECONNREFUSED');
  });

  it('reports a name that does not resolve as a connection error', async () => {
    const notFound: LookupFunction = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
    const local = createOutboundClient({ allowPrivate: true, lookup: notFound });
    try {
      const result = await local.send(request(`http://nowhere.example:${receiver.port}/ok`));
      expect(result).toMatchObject({
        kind: 'connection',
        message: 'getaddrinfo ENOTFOUND nowhere.example',
        code: 'ENOTFOUND',
      });
      // The inbox's error class reads the code (domain/delivery/error-class.ts).
      if (result.kind === 'connection') expect(classifyError(result)).toBe('dns');
    } finally {
      await local.close();
    }
  });

  it('reads at most maxResponseBytes of a huge body', async () => {
    const result = await client.send(request(`${base}/huge`, { maxResponseBytes: 1_000 }));
    expect(result).toMatchObject({ kind: 'response', status: 200, bodyTruncated: true });
    if (result.kind === 'response') expect(result.bodyExcerpt).toBe('x'.repeat(1_000));
    // The pool stays usable after the truncated exchange closed its connection.
    expect(await client.send(request(`${base}/ok`))).toMatchObject({ kind: 'response', status: 200 });
  });

  it('does not mark a body of exactly the limit as truncated', async () => {
    const result = await client.send(request(`${base}/exact`, { maxResponseBytes: 1_000 }));
    expect(result).toMatchObject({ kind: 'response', bodyTruncated: false });
    if (result.kind === 'response') expect(result.bodyExcerpt).toHaveLength(1_000);
  });

  it('decodes an excerpt cut inside a multi-byte character with a replacement character', async () => {
    const result = await client.send(request(`${base}/multibyte`, { maxResponseBytes: 3 }));
    expect(result).toMatchObject({ kind: 'response', bodyExcerpt: '\u00e9\ufffd', bodyTruncated: true });
  });

  it('reuses a kept-alive connection for sequential requests', async () => {
    for (let i = 0; i < 20; i++) {
      expect(await client.send(request(`${base}/ok`))).toMatchObject({ kind: 'response', status: 200 });
    }
    expect(receiver.connections).toBeLessThanOrEqual(1);
  });

  it('resolves names through the injected lookup', async () => {
    const asked: string[] = [];
    const local = createOutboundClient({ allowPrivate: true, lookup: fixedLookup(['127.0.0.1'], asked) });
    try {
      const result = await local.send(request(`http://rebind.example:${receiver.port}/ok`));
      expect(result).toMatchObject({ kind: 'response', status: 200 });
      expect(asked).toEqual(['rebind.example']);
    } finally {
      await local.close();
    }
  });

  it('refuses a CONNECT request', async () => {
    expect(await client.send(request(`${base}/ok`, { method: 'CONNECT' }))).toMatchObject({
      kind: 'blocked',
    });
  });

  it('answers an invalid header value as blocked rather than throwing', async () => {
    const result = await client.send(request(`${base}/ok`, { headers: { 'x-bad': 'a\r\nInjected: 1' } }));
    expect(result.kind).toBe('blocked');
    expect(receiver.connections).toBe(0);
  });
});

describe('with private destinations refused', () => {
  let client: OutboundClient;

  beforeAll(() => {
    client = createOutboundClient({ allowPrivate: false });
  });

  afterAll(async () => {
    await client.close();
  });

  it('refuses http to a loopback receiver', async () => {
    const result = await client.send(request(`http://127.0.0.1:${receiver.port}/ok`));
    expect(result).toMatchObject({ kind: 'blocked', message: 'destination URL must use https' });
    expect(receiver.connections).toBe(0);
  });

  // Each form names the receiver's own loopback port: a leak would show up as a connection to it.
  it.each([
    'https://127.0.0.1:PORT/',
    'https://2130706433:PORT/',
    'https://0177.0.0.1:PORT/',
    'https://0x7f.1:PORT/',
    'https://127.1:PORT/',
    'https://0.0.0.0:PORT/',
    'https://[::1]:PORT/',
    'https://[::ffff:127.0.0.1]:PORT/',
    'https://[::ffff:7f00:1]:PORT/',
    'https://localhost:PORT/',
    'https://169.254.169.254:PORT/latest/meta-data/',
  ])('refuses %s before connecting', async (template) => {
    const result = await client.send(request(template.replace('PORT', String(receiver.port))));
    expect(result.kind).toBe('blocked');
    expect(receiver.connections).toBe(0);
  });

  it('refuses a name that resolves to 127.0.0.1 without connecting (DNS rebinding)', async () => {
    const asked: string[] = [];
    const local = createOutboundClient({ allowPrivate: false, lookup: fixedLookup(['127.0.0.1'], asked) });
    try {
      const result = await local.send(request(`https://rebind.example:${receiver.port}/ok`));
      expect(result).toMatchObject({
        kind: 'blocked',
        message: 'destination resolves to a non-public address',
      });
      expect(asked).toEqual(['rebind.example']);
      expect(receiver.connections).toBe(0);
    } finally {
      await local.close();
    }
  });

  it('refuses a name that resolves to ::ffff:127.0.0.1 or ::1', async () => {
    for (const address of ['::ffff:127.0.0.1', '::1']) {
      const local = createOutboundClient({ allowPrivate: false, lookup: fixedLookup([address]) });
      try {
        expect(await local.send(request(`https://v6.example:${receiver.port}/ok`))).toMatchObject({
          kind: 'blocked',
        });
      } finally {
        await local.close();
      }
    }
    expect(receiver.connections).toBe(0);
  });

  it('refuses a public-looking https name resolving to 10.0.0.1 before any connection attempt', async () => {
    const local = createOutboundClient({ allowPrivate: false, lookup: fixedLookup(['10.0.0.1']) });
    try {
      // A connection attempt would end as 'connection' or 'timeout', never 'blocked'.
      const result = await local.send(request('https://hooks.public-looking.com/in', { timeoutMs: 300 }));
      expect(result).toMatchObject({
        kind: 'blocked',
        message: 'destination resolves to a non-public address',
      });
    } finally {
      await local.close();
    }
  });

  it('refuses a name whose answers mix a public and a private address', async () => {
    const local = createOutboundClient({
      allowPrivate: false,
      lookup: fixedLookup(['93.184.216.34', '127.0.0.1']),
    });
    try {
      const result = await local.send(request(`https://mixed.example:${receiver.port}/ok`));
      expect(result).toMatchObject({
        kind: 'blocked',
        message: 'destination resolves to a non-public address',
      });
    } finally {
      await local.close();
    }
  });

  it('checks the connected peer address too, for hosts that skip name resolution', async () => {
    const connect = guardedConnector(false, fixedLookup(['93.184.216.34']));
    const error = await new Promise<Error | null>((resolve) => {
      connect({ hostname: '127.0.0.1', protocol: 'http:', port: String(receiver.port) }, (...args) =>
        resolve(args[0]),
      );
    });
    expect(error).toBeInstanceOf(DestinationBlockedError);
    expect(error?.message).toBe('destination resolves to a non-public address');
  });
});

describe('with private networks allowed by the operator', () => {
  const networks = (text: string): PrivateAccess => {
    const parsed = parseNetworks(text);
    if ('error' in parsed) throw new Error(parsed.error);
    return parsed;
  };

  it('sends plain http to a receiver inside the networks, by literal and by name', async () => {
    const local = createOutboundClient({
      allowPrivate: networks('127.0.0.0/8'),
      lookup: fixedLookup(['127.0.0.1']),
    });
    try {
      const before = receiver.connections;
      expect(await local.send(request(`http://127.0.0.1:${receiver.port}/ok`))).toMatchObject({
        kind: 'response',
        status: 200,
      });
      expect(await local.send(request(`http://billing.internal.example:${receiver.port}/ok`))).toMatchObject({
        kind: 'response',
        status: 200,
      });
      expect(receiver.connections).toBeGreaterThan(before);
    } finally {
      await local.close();
    }
  });

  it('refuses every other non-public address, before connecting', async () => {
    const local = createOutboundClient({
      allowPrivate: networks('10.20.0.0/16'),
      lookup: fixedLookup(['127.0.0.1']),
    });
    try {
      const before = receiver.connections;
      expect(await local.send(request(`http://127.0.0.1:${receiver.port}/ok`))).toMatchObject({
        kind: 'blocked',
        message: 'destination URL must not target a private, loopback, link-local or reserved address',
      });
      expect(await local.send(request(`http://rebind.example:${receiver.port}/ok`))).toMatchObject({
        kind: 'blocked',
        message: 'destination resolves to a non-public address',
      });
      expect(receiver.connections).toBe(before);
    } finally {
      await local.close();
    }
  });

  it('checks the connected peer against the networks', async () => {
    const connectTo = (access: PrivateAccess) =>
      new Promise<Error | null>((resolve) => {
        guardedConnector(access, fixedLookup(['93.184.216.34']))(
          { hostname: '127.0.0.1', protocol: 'http:', port: String(receiver.port) },
          (...args) => {
            args[1]?.destroy();
            resolve(args[0]);
          },
        );
      });
    expect(await connectTo(networks('127.0.0.1'))).toBeNull();
    const refused = await connectTo(networks('::1,10.0.0.0/8'));
    expect(refused).toBeInstanceOf(DestinationBlockedError);
    expect(refused?.message).toBe('destination resolves to a non-public address');
  });
});
