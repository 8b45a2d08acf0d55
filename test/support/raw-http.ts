import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request whose target is sent exactly as given (`/%761/contacts`, or absolute-form `http://x/v1/contacts`):
 * fetch would normalise it first.
 */
export function rawRequest(
  origin: string,
  target: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, method: opts.method ?? 'GET', path: target, headers: opts.headers ?? {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Sends the head of a request and a first slice of its body, then nothing: what the server answers, if anything. */
export function slowBodyRequest(
  origin: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ text: string; ms: number }> {
  const { hostname, port } = new URL(origin);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n` +
          Object.entries(headers)
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join('') +
          '\r\n{"a":',
      );
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
    socket.on('error', reject);
  });
}
