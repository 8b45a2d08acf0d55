import { describe, expect, it } from 'vitest';
import { UsageError } from '../../runtime.js';
import { buildPauseBody } from './pause.js';

describe('sched actions pause', () => {
  it('builds one of until, duration or indefinite (the default), with the note', () => {
    expect(buildPauseBody({})).toEqual({ indefinite: true });
    expect(buildPauseBody({ duration: '2h', note: 'outage' })).toEqual({ duration: '2h', note: 'outage' });
    expect(buildPauseBody({ until: '2030-01-01T09:00:00Z' })).toEqual({ until: '2030-01-01T09:00:00Z' });
    expect(buildPauseBody({ indefinite: true })).toEqual({ indefinite: true });
  });

  it('refuses two ways of ending, or a bad duration, before any request', () => {
    expect(() => buildPauseBody({ until: '2030-01-01T09:00:00Z', duration: '1h' })).toThrow(
      'give only one of --until, --duration',
    );
    expect(() => buildPauseBody({ duration: 'soon' })).toThrow(UsageError);
  });
});
