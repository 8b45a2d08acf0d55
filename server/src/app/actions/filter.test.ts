import { describe, expect, it } from 'vitest';
import { toActionFilter } from './filter.js';

describe('toActionFilter', () => {
  it('folds legacy names and normalises the host', () => {
    expect(
      toActionFilter({
        status: 'pending_resolution',
        mode: 'immediate',
        destination_host: 'API.Example.com.',
      }),
    ).toEqual({
      status: 'scheduled',
      mode: 'webhook',
      destinationHost: 'api.example.com',
    });
  });

  it('spells an origin the one way; one that is no origin matches nothing', () => {
    expect(toActionFilter({ destination_origin: 'HTTP://127.0.0.1:9000/' })).toEqual({
      destinationOrigin: { origin: 'http://127.0.0.1:9000', host: '127.0.0.1' },
    });
    expect(toActionFilter({ destination_origin: 'api.example.com' })).toEqual({
      destinationOrigin: { origin: 'https://api.example.com', host: 'api.example.com' },
    });
    expect(toActionFilter({ destination_origin: 'ftp://api.example.com' })).toBeNull();
  });

  it('a status code outside 2xx is class http; a 2xx implies no class', () => {
    expect(toActionFilter({ last_status_code: '5xx' })).toEqual({
      lastStatusCode: { from: 500, to: 599 },
      errorClass: 'http',
    });
    expect(toActionFilter({ last_status_code: 200 })).toEqual({ lastStatusCode: { exact: 200 } });
    // With a state or a destination the class is left unsaid (their indexes carry the code), and still checked.
    expect(toActionFilter({ last_status_code: '5xx', destination_host: 'api.example.com' })).toEqual({
      lastStatusCode: { from: 500, to: 599 },
      destinationHost: 'api.example.com',
    });
    expect(toActionFilter({ last_status_code: '5xx', status: 'failed' })).toEqual({
      status: 'failed',
      lastStatusCode: { from: 500, to: 599 },
    });
    expect(toActionFilter({ last_status_code: '5xx', status: 'failed', error_class: 'timeout' })).toBeNull();
  });

  it('time bounds become dates', () => {
    expect(
      toActionFilter({ failed_after: '2030-01-01T00:00:00Z', created_before: '2030-02-01T00:00:00Z' }),
    ).toEqual({
      failedAfter: new Date('2030-01-01T00:00:00Z'),
      createdBefore: new Date('2030-02-01T00:00:00Z'),
    });
  });

  it('filters that contradict each other match nothing', () => {
    expect(toActionFilter({ status: 'nonsense' as never })).toBeNull();
    expect(toActionFilter({ status: 'executed', failed_after: '2030-01-01T00:00:00Z' })).toBeNull();
    expect(toActionFilter({ last_status_code: '503', error_class: 'timeout' })).toBeNull();
  });
});
