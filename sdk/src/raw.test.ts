import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './client.js';

/** What a loopback server received: the raw request line, headers and body. */
interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const received: Received[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id: 'x' } }));
  });
});
let baseUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('requests sent from the route table', () => {
  it('puts encoded path parameters, a qs-style query, the key and a JSON body on the wire', async () => {
    const sched = createClient({ baseUrl, apiKey: 'sk_wire', headers: { 'X-Trace': 't1' } });
    received.length = 0;
    await sched.actions.get('a/../b');
    await sched.actions.list({ status: 'scheduled', per_page: 5, search: 'a b&c' });
    await sched.contacts.update('c1', { name: 'Ann' });
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /v1/actions/a%2F..%2Fb',
      'GET /v1/actions?status=scheduled&per_page=5&search=a%20b%26c',
      'PUT /v1/contacts/c1',
    ]);
    expect(received[0]!.headers).toMatchObject({ authorization: 'Bearer sk_wire', 'x-trace': 't1' });
    expect(received[0]!.headers['content-type']).toBeUndefined();
    expect(received[0]!.body).toBe('');
    expect(received[2]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(received[2]!.body)).toEqual({ name: 'Ann' });
  });
});
