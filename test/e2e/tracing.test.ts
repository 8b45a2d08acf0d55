import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** The `service.name` of the resource it was exported under. */
  service?: string;
  links?: { traceId: string; spanId: string }[];
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP collector on loopback: decodes each JSON export into its spans. */
async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const exported = JSON.parse(body) as {
          resourceSpans: {
            resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: OtlpSpan[] }[];
          }[];
        };
        for (const r of exported.resourceSpans) {
          const service = r.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
          for (const s of r.scopeSpans) spans.push(...s.spans.map((span) => ({ ...span, service })));
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value ? (value.stringValue ?? Number(value.intValue ?? value.doubleValue)) : undefined;
};

describe('OpenTelemetry across the delay (OTLP to an in-test collector)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let rx: Receiver;

  beforeAll(async () => {
    [collector, rx] = await Promise.all([startCollector(), startReceiver()]);
    db = await createTestDatabase('tracing');
    server = await startServer({
      databaseUrl: db.url,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'sched-test' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
    await rx?.close();
    collector?.server.close();
  });

  it("links the delivery span to the create's trace and sends the receiver a traceparent of that span", async () => {
    const createTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const createSpan = '00f067aa0ba902b7';
    const res = await fetch(`${server.url}/v1/actions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.apiKey}`,
        'content-type': 'application/json',
        traceparent: `00-${createTrace}-${createSpan}-01`,
      },
      body: JSON.stringify({ schedule: { wait: '1s' }, request: { url: `${rx.url}/traced` } }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { id: string } }).data.id;

    const delivered = await eventually(async () => rx.to('/traced')[0], 30_000);
    const [, traceId, parentId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(
      String(delivered.headers.traceparent),
    )!;

    const span = await eventually(
      async () => collector.spans.find((s) => s.name === 'sched.delivery'),
      30_000,
    );
    expect(span.traceId).toBe(traceId);
    expect(span.spanId).toBe(parentId);
    // The API request is a span of the caller's trace (a child of its traceparent); the delivery links to it.
    const request = await eventually(
      async () => collector.spans.find((s) => s.name === 'POST /v1/actions' && s.traceId === createTrace),
      30_000,
    );
    expect(request.parentSpanId).toBe(createSpan);
    expect(attribute(request, 'http.response.status_code')).toBe(201);
    expect(span.links).toEqual([expect.objectContaining({ traceId: createTrace, spanId: request.spanId })]);
    // OTEL_SERVICE_NAME names the service of every span.
    expect(span.service).toBe('sched-test');
    expect(request.service).toBe('sched-test');
    expect(attribute(span, 'sched.action_id')).toBe(id);
    expect(attribute(span, 'sched.attempt')).toBe(1);
    expect(attribute(span, 'sched.lateness_ms')).toEqual(expect.any(Number));
    expect(attribute(span, 'http.response.status_code')).toBe(200);
  });

  it('an approval round sent and its answer are spans too', async () => {
    const created = await api(server, server.apiKey, 'POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Traced?', recipients: ['ada@example.com'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const link = await eventually(async () => {
      const listed = await api(server, server.apiKey, 'GET', `/v1/outbox?action_id=${id}`);
      return listed.body.data[0]?.response_link as string | undefined;
    }, 30_000);
    const answered = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'confirm' }),
    });
    expect(answered.status).toBe(200);
    const send = await eventually(
      async () =>
        collector.spans.find(
          (s) => s.name === 'sched.approval.send' && attribute(s, 'sched.action_id') === id,
        ),
      30_000,
    );
    expect(send).toBeDefined();
    const answer = await eventually(
      async () => collector.spans.find((s) => s.name === 'sched.approval.answer'),
      30_000,
    );
    expect(attribute(answer, 'sched.decision')).toBe('confirm');
  });
});
