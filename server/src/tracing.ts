import type { Tracing } from './app/ports.js';
import { SERVER_VERSION } from './version.js';

/**
 * OpenTelemetry tracing, exported over OTLP/HTTP (JSON) to OTEL_EXPORTER_OTLP_ENDPOINT (`.../v1/traces`; the
 * exporter also reads OTEL_EXPORTER_OTLP_HEADERS). The spans' resource is `service.name` `sched` and the server's
 * version, overridden by the standard OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. Without the endpoint nothing
 * is loaded: the SDK is imported only here, on demand, and the service runs with no tracing port at all.
 */
export async function createTracing(
  env: NodeJS.ProcessEnv = process.env,
): Promise<(Tracing & { shutdown(): Promise<void> }) | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true') return undefined;
  const [
    api,
    { TracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { W3CTraceContextPropagator },
    { defaultResource, detectResources, envDetector, resourceFromAttributes },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  // Later wins: the SDK's own attributes, then sched's name and version, then what the environment says.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'sched', 'service.version': SERVER_VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: 1000 }),
    ],
  });
  const tracer = provider.getTracer('sched');
  const propagator = new W3CTraceContextPropagator();
  const getter = {
    keys: (c: Record<string, string>) => Object.keys(c),
    get: (c: Record<string, string>, k: string) => c[k],
  };
  const setter = {
    set: (c: Record<string, string>, k: string, v: string) => {
      c[k] = v;
    },
  };

  /** The span context a stored traceparent names, to link to. */
  const linkTo = (traceparent: string | null) => {
    if (!traceparent) return [];
    const ctx = propagator.extract(api.ROOT_CONTEXT, { traceparent }, getter);
    const spanContext = api.trace.getSpanContext(ctx);
    return spanContext && api.isSpanContextValid(spanContext) ? [{ context: spanContext }] : [];
  };

  return {
    deliveryAttempt({ actionId, attempt, latenessMs, createdBy }) {
      const span = tracer.startSpan('sched.delivery', {
        kind: api.SpanKind.CLIENT,
        links: linkTo(createdBy),
        attributes: {
          'sched.action_id': actionId,
          'sched.attempt': attempt,
          'sched.lateness_ms': latenessMs,
        },
      });
      const headers: Record<string, string> = {};
      propagator.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers, setter);
      return {
        headers,
        end({ status, error }) {
          if (status !== null) span.setAttribute('http.response.status_code', status);
          if (error || status === null || status >= 400) {
            span.setStatus({ code: api.SpanStatusCode.ERROR, ...(error ? { message: error } : {}) });
          }
          span.end();
        },
      };
    },
    async span(name, attributes, fn) {
      const span = tracer.startSpan(name, { attributes });
      try {
        return await fn();
      } catch (err) {
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
    request({ method, route, traceparent }) {
      const parent = traceparent
        ? propagator.extract(api.ROOT_CONTEXT, { traceparent }, getter)
        : api.ROOT_CONTEXT;
      const span = tracer.startSpan(
        `${method} ${route}`,
        { kind: api.SpanKind.SERVER, attributes: { 'http.request.method': method, 'http.route': route } },
        parent,
      );
      const headers: Record<string, string> = {};
      propagator.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers, setter);
      return {
        traceparent: headers.traceparent!,
        end(status) {
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
