import { describe, expect, it } from 'vitest';
import { describeTest } from './show.js';

describe('sched destinations test: the outcome for people', () => {
  it('shows the status, the time, the signature and the start of the answer', () => {
    const text = describeTest({
      url: 'https://api.example.com/hooks',
      status: 200,
      duration_ms: 84,
      signed: true,
      response_excerpt: 'ok',
    });
    expect(text.split('\n')).toEqual([
      'url       https://api.example.com/hooks',
      'status    200',
      'duration  84 ms',
      'signed    yes',
      'response  ok',
    ]);
  });

  it('says why no answer came, and that an account without a secret sends unsigned', () => {
    const text = describeTest({
      url: 'https://down.example.com/',
      status: null,
      duration_ms: 10_000,
      signed: false,
      error: 'timed out after 10000 ms',
    });
    expect(text).toContain('status    no answer: timed out after 10000 ms');
    expect(text).toContain('signed    no (the account has no signing secret)');
    expect(text).not.toContain('response');
  });
});
