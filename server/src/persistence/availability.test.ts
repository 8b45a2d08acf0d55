import { describe, expect, it } from 'vitest';
import { DatabaseAvailability, databaseFault } from './availability.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('databaseFault', () => {
  it('classifies the driver errors of an outage, a connection timeout and a statement timeout', () => {
    expect(databaseFault(withCode('ECONNREFUSED'))).toBe('unavailable');
    expect(databaseFault(withCode('57P01', 'terminating connection due to administrator command'))).toBe(
      'unavailable',
    );
    expect(databaseFault(withCode('57P03', 'the database system is starting up'))).toBe('unavailable');
    expect(databaseFault(withCode('08006'))).toBe('unavailable');
    expect(databaseFault(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(databaseFault(new AggregateError([withCode('ECONNREFUSED')], 'connect'))).toBe('unavailable');
    expect(databaseFault(new Error('wrapped', { cause: withCode('57P02') }))).toBe('unavailable');
    expect(databaseFault(new Error('timeout exceeded when trying to connect'))).toBe('timeout');
    expect(databaseFault(withCode('57014', 'canceling statement due to statement timeout'))).toBe(
      'statement_timeout',
    );
    expect(databaseFault(withCode('23505', 'duplicate key'))).toBeUndefined();
    expect(databaseFault(new Error('boom'))).toBeUndefined();
  });
});

describe('DatabaseAvailability', () => {
  it('logs one warning when the database goes away and one info line with the outage length when it is back', async () => {
    const lines: string[] = [];
    let up = false;
    let now = 1_000;
    const tracker = new DatabaseAvailability({
      probe: async () => {
        if (!up) throw withCode('ECONNREFUSED');
      },
      log: {
        warn: (_f, m) => lines.push(`warn ${m}`),
        info: (f, m) => lines.push(`info ${m} ${JSON.stringify(f)}`),
      },
      probeIntervalMs: 10,
      now: () => now,
    });
    for (let i = 0; i < 50; i++) expect(tracker.absorbs(withCode('57P01'))).toBe(true);
    expect(tracker.absorbs(new Error('a bug'))).toBe(false);
    expect(tracker.available).toBe(false);
    expect(tracker.answerFor(new Error('timeout exceeded when trying to connect'))).toBe('unavailable');
    await new Promise((r) => setTimeout(r, 50));
    now = 4_500;
    up = true;
    await new Promise((r) => setTimeout(r, 50));
    tracker.close();
    expect(tracker.available).toBe(true);
    expect(lines).toEqual([
      'warn database unavailable: answering 503 and retrying until it is back',
      'info database available again after 3.5 s {"outageMs":3500}',
    ]);
  });

  it('a connection timeout with the database up answers "slow" (pool exhausted) without starting an outage', async () => {
    const tracker = new DatabaseAvailability({
      probe: async () => {},
      log: { warn: () => expect.fail('no outage'), info: () => {} },
    });
    expect(tracker.answerFor(new Error('timeout exceeded when trying to connect'))).toBe('slow');
    expect(tracker.answerFor(withCode('57014'))).toBe('slow');
    await tracker.check();
    expect(tracker.available).toBe(true);
    tracker.close();
  });
});
