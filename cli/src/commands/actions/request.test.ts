import { describe, expect, it } from 'vitest';
import { UsageError } from '../../runtime.js';
import { buildCreateBody, buildListQuery, buildRecurrence, cancelTarget, parseHeaders } from './request.js';

const url = 'https://example.com/hook';

describe('buildCreateBody', () => {
  it('maps the everyday command: --url --in 10m --body', () => {
    expect(buildCreateBody({ url, in: '10m', body: '{"a":1}' })).toEqual({
      request: { url, method: 'POST', body: { a: 1 } },
      schedule: { wait: '10m' },
    });
  });

  it('maps every flag to its API field', () => {
    expect(
      buildCreateBody({
        url,
        preset: 'tomorrow',
        method: 'put',
        header: ['Authorization: Bearer abc:def', 'X-Trace:  1 '],
        name: 'n',
        description: 'd',
        timezone: 'Europe/Berlin',
        idempotencyKey: 'idem',
        dedupKey: ['k1', 'k2'],
        onCreate: 'skip_if_exists',
        maxAttempts: '3',
        retryStrategy: 'linear',
        secret: 's'.repeat(16),
        callbackUrl: 'https://example.com/cb',
        every: '1h',
        times: '4',
      }),
    ).toEqual({
      request: { url, method: 'PUT', headers: { Authorization: 'Bearer abc:def', 'X-Trace': '1' } },
      schedule: { preset: 'tomorrow' },
      name: 'n',
      description: 'd',
      timezone: 'Europe/Berlin',
      idempotency_key: 'idem',
      dedup_keys: ['k1', 'k2'],
      coordination: { on_create: 'skip_if_exists' },
      max_attempts: 3,
      retry_strategy: 'linear',
      webhook_secret: 's'.repeat(16),
      callback_url: 'https://example.com/cb',
      recurrence: { frequency: 1, unit: 'h', end_type: 'count', max_occurrences: 4 },
    });
  });

  it('--at is scheduled_for, kept as typed (the server reads an offset-less time as UTC)', () => {
    expect(buildCreateBody({ url, at: '2030-01-31T09:00:00' })).toMatchObject({
      scheduled_for: '2030-01-31T09:00:00',
    });
    expect(buildCreateBody({ url, at: '2030-01-31T09:00:00Z' }).schedule).toBeUndefined();
  });

  it('reads --body-file through the injected reader', () => {
    const read = (path: string) => (path === 'body.json' ? '{"from":"file"}' : '');
    expect(buildCreateBody({ url, in: '1m', bodyFile: 'body.json' }, read).request?.body).toEqual({
      from: 'file',
    });
  });

  it.each([
    [{ url }, /say when/],
    [{ url, in: '10m', at: '2030-01-01T00:00:00Z' }, /only one of --in, --at/],
    [{ url, in: '10 minutes' }, /--in must be a whole number/],
    [{ url, in: '10M' }, /--in must be a whole number/],
    [{ url, preset: 'someday' }, /--preset must be one of tomorrow/],
    [{ url, at: 'next tuesday' }, /--at must be an ISO 8601 time/],
    [{ url, in: '1m', body: '{a:1}' }, /--body is not valid JSON/],
    [{ url, in: '1m', body: '{}', bodyFile: 'f' }, /--body or --body-file, not both/],
    [{ url, in: '1m', method: 'FETCH' }, /--method must be one of GET/],
    [{ url, in: '1m', header: ['NoColon'] }, /--header must look like 'Name: value'/],
    [{ url, in: '1m', maxAttempts: '0' }, /--max-attempts must be a positive whole number/],
    [{ url, in: '1m', maxAttempts: '2.5' }, /--max-attempts must be a positive whole number/],
    [{ url, in: '1m', onCreate: 'skip_if_exists' }, /--on-create needs at least one --dedup-key/],
    [{ url, in: '1m', times: '3' }, /need --every/],
  ])('refuses %o as a usage error', (opts, message) => {
    expect(() => buildCreateBody(opts)).toThrow(UsageError);
    expect(() => buildCreateBody(opts)).toThrow(message);
  });

  it('names an unreadable --body-file', () => {
    const read = () => {
      throw new Error('ENOENT: no such file');
    };
    expect(() => buildCreateBody({ url, in: '1m', bodyFile: 'missing.json' }, read)).toThrow(
      /--body-file: cannot read missing.json: ENOENT/,
    );
  });
});

describe('buildRecurrence', () => {
  it('reads --every as frequency and unit, with the end from --times or --until', () => {
    expect(buildRecurrence({})).toBeUndefined();
    expect(buildRecurrence({ every: '15m' })).toEqual({ frequency: 15, unit: 'm', end_type: 'never' });
    expect(buildRecurrence({ every: '2M', until: '2031-01-01T00:00:00Z' })).toEqual({
      frequency: 2,
      unit: 'M',
      end_type: 'date',
      end_date: '2031-01-01T00:00:00Z',
    });
  });

  it('refuses bad intervals and contradictory ends', () => {
    expect(() => buildRecurrence({ every: '0h' })).toThrow(/--every must be/);
    expect(() => buildRecurrence({ every: '1s' })).toThrow(/--every must be/);
    expect(() => buildRecurrence({ every: '1h', times: '2', until: '2031-01-01T00:00:00Z' })).toThrow(
      /--times or --until, not both/,
    );
    expect(() => buildRecurrence({ every: '1h', times: '1' })).toThrow(/at least 2/);
  });
});

describe('parseHeaders', () => {
  it('splits on the first colon and trims; the last repeated name wins', () => {
    expect(parseHeaders(['A: 1', 'B:http://x', 'A: 2'])).toEqual({ A: '2', B: 'http://x' });
    expect(() => parseHeaders([': v'])).toThrow(UsageError);
    expect(() => parseHeaders(['Bad Name: v'])).toThrow(UsageError);
  });
});

describe('buildListQuery', () => {
  it('maps filters and pagination', () => {
    expect(
      buildListQuery({
        status: 'pending_resolution',
        mode: 'gated',
        search: 'x',
        dedupKey: 'k',
        oneTime: true,
      }),
    ).toEqual({
      status: 'pending_resolution',
      mode: 'gated',
      search: 'x',
      dedup_key: 'k',
      recurring: 'one-time',
    });
    expect(buildListQuery({ recurring: true, page: '2', perPage: '100' })).toEqual({
      recurring: 'recurring',
      page: 2,
      per_page: 100,
    });
    expect(buildListQuery({})).toEqual({});
  });

  it('refuses contradictions and out-of-range pages', () => {
    expect(() => buildListQuery({ recurring: true, oneTime: true })).toThrow(UsageError);
    expect(() => buildListQuery({ perPage: '101' })).toThrow(/at most 100/);
    expect(() => buildListQuery({ page: '0' })).toThrow(/--page must be a positive whole number/);
    expect(() => buildListQuery({ status: 'done' })).toThrow(/--status must be one of/);
  });
});

describe('cancelTarget', () => {
  it('takes exactly one of an id, --idempotency-key and --dedup-key', () => {
    expect(cancelTarget('id-1', {})).toEqual({ by: 'id', id: 'id-1' });
    expect(cancelTarget(undefined, { idempotencyKey: 'i' })).toEqual({ by: 'idempotency_key', key: 'i' });
    expect(cancelTarget(undefined, { dedupKey: 'd' })).toEqual({ by: 'dedup_key', key: 'd' });
    expect(() => cancelTarget(undefined, {})).toThrow(UsageError);
    expect(() => cancelTarget('id-1', { dedupKey: 'd' })).toThrow(UsageError);
  });
});
