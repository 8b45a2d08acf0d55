import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ApprovalMessage } from './types.js';

/**
 * Test support for channel adapters: a sample message and a loopback HTTP receiver standing in for Twilio,
 * Slack, Teams or a push service. Used by the unit tests here and by end-to-end tests.
 */

export function sampleApprovalMessage(overrides: Partial<ApprovalMessage> = {}): ApprovalMessage {
  return {
    actionId: '0b9e6f6c-3f0a-4a53-9d55-2a8f1f2c7e11',
    title: 'Deploy release 4.2',
    body: 'Please approve the deploy.\nIt touches <script>alert(1)</script> & billing.',
    recipientName: 'Ada Lovelace',
    responseUrl: 'http://sched.test/r/3q2-7wEAAAAbbbbCCCCdddd_eeeeFFFF',
    buttons: { confirm: 'Approve', decline: 'Reject' },
    snoozeAllowed: true,
    expiresAt: new Date('2030-01-08T12:30:00.000Z'),
    kind: 'request',
    attachments: [],
    ...overrides,
  };
}

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 that records each request and answers with `respond`. */
export async function startLoopbackReceiver(
  respond: (req: ReceivedRequest) => { status: number; body?: string; headers?: Record<string, string> },
): Promise<LoopbackReceiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(received);
      const answer = respond(received);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
