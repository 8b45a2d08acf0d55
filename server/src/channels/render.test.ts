import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { renderEmail } from './email.js';
import { renderForOutbox } from './outbox.js';
import { renderPushPayload } from './push.js';
import { normaliseBody } from './render.js';
import { renderSlackPayload } from './slack.js';
import { renderSmsBody } from './sms.js';
import { renderTeamsPayload } from './teams.js';
import { sampleApprovalMessage } from './testing.js';

/** Milliseconds of the fastest of three runs: one busy moment on a shared machine must not fail the test. */
function fastestMs(run: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i += 1) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe('normaliseBody', () => {
  it('normalises line endings, cuts trailing blanks and keeps at most one empty line', () => {
    expect(normaliseBody('  a  \r\nb\t \r\r\n\n\n c \n\n')).toBe('a\nb\n\n c');
    expect(normaliseBody('one\n \t\n\t\n \ntwo')).toBe('one\n\ntwo');
    expect(normaliseBody('')).toBe('');
  });

  it('takes linear time: 1 MB of spaces not followed by a line break renders in well under 100 ms', () => {
    const body = `${' '.repeat(1024 * 1024)}x`;
    expect(normaliseBody(body)).toBe('x');
    expect(fastestMs(() => normaliseBody(body))).toBeLessThan(100);
    const lines = `${`${' \t'.repeat(500)}y\n`.repeat(1000)}`;
    expect(fastestMs(() => normaliseBody(lines))).toBeLessThan(100);
  });

  it('keeps every channel renderer linear on the same message', () => {
    const message = sampleApprovalMessage({ body: `${' '.repeat(1024 * 1024)}x` });
    const renderers: Record<string, () => unknown> = {
      email: () => renderEmail(message),
      push: () => renderPushPayload(message),
      slack: () => renderSlackPayload(message),
      teams: () => renderTeamsPayload(message),
      sms: () => renderSmsBody(message),
      outbox: () => renderForOutbox('email', message),
    };
    for (const [name, render] of Object.entries(renderers)) {
      expect({ name, ms: fastestMs(render) < 100 }).toEqual({ name, ms: true });
    }
  });
});
