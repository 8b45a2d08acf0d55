import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, type OutboundClient } from './http-client.js';

/*
 * Connections to an https destination are kept and reused: one TLS handshake for many sequential deliveries while
 * the connection lives, and a resumed (abbreviated) handshake when it has to be opened again. The receiver is a real
 * https server on loopback with a self-signed certificate (openssl) that the client is told to trust.
 */

const dir = mkdtempSync(join(tmpdir(), 'sched-tls-'));
let cert: string;
let server: Server;
let port: number;
const handshakes: { resumed: boolean }[] = [];

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      ...[
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
      ],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  server.on('secureConnection', (socket: TLSSocket) =>
    handshakes.push({ resumed: socket.isSessionReused() }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const get = (client: OutboundClient) =>
  client.send({
    url: `https://127.0.0.1:${port}/hook`,
    method: 'POST',
    headers: {},
    body: '{}',
    timeoutMs: 5_000,
    maxResponseBytes: 1_024,
  });

describe('connections to an https destination', () => {
  it('are kept alive across sequential deliveries: no new handshake once the pool is warm', async () => {
    handshakes.length = 0;
    const client = createOutboundClient({ allowPrivate: true, ca: cert });
    try {
      // undici may open a second connection while the first is still being handed back after the first response.
      for (let i = 0; i < 3; i += 1)
        expect(await get(client)).toMatchObject({ kind: 'response', status: 200 });
      const warm = handshakes.length;
      expect(warm).toBeLessThanOrEqual(2);
      for (let i = 0; i < 20; i += 1)
        expect(await get(client)).toMatchObject({ kind: 'response', status: 200 });
      expect(handshakes).toHaveLength(warm);
    } finally {
      await client.close();
    }
  });

  it('resume their TLS session when a closed connection is opened again', async () => {
    handshakes.length = 0;
    const client = createOutboundClient({ allowPrivate: true, ca: cert });
    try {
      expect(await get(client)).toMatchObject({ kind: 'response', status: 200 });
      // The destination drops its idle connections (as a server whose keep-alive ran out does).
      server.closeIdleConnections();
      // The client may try the closed socket once before it notices: what counts is the next answered delivery.
      await expect.poll(async () => (await get(client)).kind).toBe('response');
      expect(handshakes.length).toBeGreaterThanOrEqual(2);
      expect(handshakes[0]).toEqual({ resumed: false });
      expect(handshakes.at(-1)).toEqual({ resumed: true });
    } finally {
      await client.close();
    }
  });

  it('refuses a certificate nobody vouches for', async () => {
    const client = createOutboundClient({ allowPrivate: true });
    try {
      expect(await get(client)).toMatchObject({ kind: 'connection' });
    } finally {
      await client.close();
    }
  });
});
