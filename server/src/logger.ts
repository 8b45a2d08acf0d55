import { pino, type Logger } from 'pino';
import { type LogFormat, readableLine, readableLogs } from './log-format.js';

/** Path segments that are bearer credentials: `/r/<response token>` and `/t/<trigger token>`. */
const TOKEN_PREFIXES = new Set(['r', 't']);
const REDACTED = '[redacted]';

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A request target fit for the logs: the segment after `r` or `t` is replaced, whatever the spelling (the router
 * percent-decodes, so `/%72/<token>` reaches `/r/:token`; absolute-form `http://host/r/<token>` too). The query
 * string goes as well: nothing the service reads from it is worth a leaked credential.
 */
function redactUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const segments = path.split('/');
  for (let i = 0; i < segments.length - 1; i += 1) {
    if (TOKEN_PREFIXES.has(decoded(segments[i]!).toLowerCase()) && segments[i + 1] !== '') {
      segments[i + 1] = REDACTED;
      i += 1;
    }
  }
  return segments.join('/');
}

/** The fields of a Fastify request the serializer reads (kept structural: the logger knows no Fastify). */
interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  host?: string;
  socket?: { remotePort?: number };
}

/**
 * JSON logs, or one readable line each for a person at a terminal (`format`, SCHED_LOG_FORMAT: log-format.ts);
 * credentials are redacted wherever they might appear, including response links in request URLs.
 */
export function createLogger(level: string, name = 'sched', format: LogFormat = 'json'): Logger {
  const readable = readableLogs(format, process.stdout.isTTY === true);
  // Lines are written in batches (8 KiB, or what 200 ms gathered; pino flushes at exit): one write per line had
  // cost a tenth of a create's CPU. The timer is armed by a line that waits, so an idle server neither writes nor
  // wakes for it.
  // Each line goes in as bytes: in its text mode the destination measures the whole batch gathered so far again for
  // every line it adds (a profiled third of a create's log line); in bytes it adds the line's length.
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8192, contentMode: 'buffer' });
  let flushing: NodeJS.Timeout | undefined;
  const flushSoon = () => {
    if (flushing) return;
    flushing = setTimeout(() => {
      flushing = undefined;
      // A flush asked while a write is under way does nothing, and what is gathered behind that write (less than
      // `minLength`) would wait for the next line, on a quiet server for good: then try again a moment later.
      const writing = (destination as unknown as { _writing?: boolean })._writing === true;
      destination.flush();
      if (writing) flushSoon();
    }, 200).unref();
  };
  // What pino writes to: every line into the destination at once, so its exit flush still finds them all. (The
  // destination's types know only its text mode.)
  const bytes = destination as unknown as { write(chunk: Buffer): boolean };
  const lines = {
    write: (line: string) => bytes.write(Buffer.from(line)),
    flush: (done?: (err?: Error) => void) => destination.flush(done),
    flushSync: () => destination.flushSync(),
  };
  return pino(
    {
      name,
      level,
      hooks: {
        streamWrite: (line) => {
          flushSoon();
          return readable ? readableLine(line) : line;
        },
      },
      serializers: {
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: redactUrl(req.url ?? ''),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'apiKey',
          'api_key',
          'webhook_secret',
          'secret',
          '*.webhook_secret',
          '*.apiKey',
        ],
        censor: '[redacted]',
      },
    },
    lines,
  );
}
