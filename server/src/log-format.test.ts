import { describe, expect, it } from 'vitest';
import { readableLine, readableLogs } from './log-format.js';

const at = new Date(2026, 10, 28, 9, 5, 7, 42).getTime();

describe('readable logs', () => {
  it('auto is readable at a terminal only; json and pretty are what they say', () => {
    expect(readableLogs('auto', true)).toBe(true);
    expect(readableLogs('auto', false)).toBe(false);
    expect(readableLogs('json', true)).toBe(false);
    expect(readableLogs('pretty', false)).toBe(true);
  });

  it('a message with its fields on one line', () => {
    const line = JSON.stringify({
      level: 40,
      time: at,
      pid: 1,
      hostname: 'h',
      name: 'sched',
      msg: 'draining',
      signal: 'SIGTERM',
      n: 3,
      note: 'two words',
    });
    expect(readableLine(`${line}\n`)).toBe(
      '09:05:07.042 WARN  draining signal=SIGTERM n=3 note="two words"\n',
    );
  });

  it('a request as an access-log line', () => {
    const line = JSON.stringify({
      level: 30,
      time: at,
      reqId: 'abc',
      req: { method: 'POST', url: '/v1/actions', host: 'localhost' },
      statusCode: 201,
      responseTime: 3.2,
      msg: 'request completed',
    });
    expect(readableLine(line)).toBe('09:05:07.042 INFO  POST /v1/actions 201 3.2ms\n');
  });

  it('an error keeps its message and its stack under the line; anything not JSON passes unchanged', () => {
    const line = JSON.stringify({
      level: 50,
      time: at,
      msg: 'shutdown failed',
      err: { message: 'boom', stack: 'Error: boom\n    at x (y.js:1:1)' },
    });
    expect(readableLine(line)).toBe('09:05:07.042 ERROR shutdown failed err=boom\n    at x (y.js:1:1)\n');
    expect(readableLine('plain text\n')).toBe('plain text\n');
  });
});
