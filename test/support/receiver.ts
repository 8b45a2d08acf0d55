import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  /** Arrival time (ms since epoch), taken when the request's headers arrive. */
  at: number;
  method: string;
  path: string;
  /** The request target as received (path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as received, for binary payloads. */
  raw: Buffer;
  json: any;
  /** When the answer was fully sent (set once it is). */
  repliedAt?: number;
}

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

/** A real HTTP server on loopback that records every request and answers as the test scripts it. */
export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Sets how a path answers; the function sees the request and how many times this path was hit before. */
  on(path: string, reply: Reply | ((req: ReceivedRequest, hits: number) => Reply)): void;
  /** Resolves with the requests to `path` once there are at least `count` of them. */
  waitFor(path: string, count?: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  to(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const replies = new Map<string, Reply | ((req: ReceivedRequest, hits: number) => Reply)>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      let json: unknown = null;
      try {
        json = body ? JSON.parse(body) : null;
      } catch {
        json = null;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const received: ReceivedRequest = {
        at,
        method: req.method ?? 'GET',
        path,
        url: req.url ?? '/',
        headers: req.headers,
        body,
        raw,
        json,
      };
      const hits = requests.filter((r) => r.path === path).length;
      requests.push(received);
      // Waiters hear of a request when it arrives, not when it is answered (some answers are held back).
      for (const w of waiters) w();
      const configured = replies.get(path) ?? { status: 200, body: 'ok' };
      const reply = typeof configured === 'function' ? configured(received, hits) : configured;
      res.on('finish', () => {
        received.repliedAt = Date.now();
      });
      const send = () => {
        res.writeHead(reply.status ?? 200, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on(path, reply) {
      replies.set(path, reply);
    },
    to(path) {
      return requests.filter((r) => r.path === path);
    },
    waitFor(path, count = 1, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = requests.filter((r) => r.path === path);
          if (matching.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matching);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `timed out waiting for ${count} request(s) to ${path}; got ${requests.filter((r) => r.path === path).length}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

export { eventually } from './wait.js';
