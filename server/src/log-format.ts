/**
 * Logs for a person at a terminal: pino's JSON line turned into one readable line (time, level, message, then the
 * other fields as key=value). JSON stays the format everywhere else, where a pipeline reads the logs. Pure: one line
 * in, one line out, so redaction (done by pino before this) is never bypassed.
 */

/** How logs are written: `auto` is readable at a terminal (stdout is a TTY) and JSON elsewhere. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function readableLogs(format: LogFormat, isTTY: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY);
}

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line has, or that the line's head already shows. */
const HEAD = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'name',
  'msg',
  'req',
  'statusCode',
  'responseTime',
  'reqId',
]);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

function clock(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** One pino JSON line (with its newline) as one readable line; a line that is not JSON passes unchanged. */
export function readableLine(line: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof o !== 'object' || o === null) return line;
  const parts = [clock(Number(o.time ?? Date.now())), LEVELS[Number(o.level)] ?? String(o.level)];
  const req = o.req as { method?: string; url?: string } | undefined;
  if (req && o.statusCode !== undefined) {
    // A request: `GET /v1/actions 201 3.2ms`, the way people read access logs.
    parts.push(
      `${req.method ?? ''} ${req.url ?? ''} ${String(o.statusCode)} ${String(o.responseTime ?? '?')}ms`,
    );
  } else if (typeof o.msg === 'string') {
    parts.push(o.msg);
  }
  const err = o.err as { message?: string; stack?: string } | undefined;
  for (const [k, v] of Object.entries(o)) {
    if (HEAD.has(k) || k === 'err' || v === undefined) continue;
    parts.push(`${k}=${value(v)}`);
  }
  if (err?.message) parts.push(`err=${value(err.message)}`);
  let out = `${parts.join(' ')}\n`;
  // A stack is what a person needs to see, under its line.
  if (err?.stack) out += `${err.stack.split('\n').slice(1).join('\n')}\n`;
  return out;
}
