import type { BulkOperation } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../runtime.js';
import { bulkTarget, inboxQuery } from './filter.js';
import { dryRunText, progressLine } from './progress.js';

const op = (processed: number, matched = 300): BulkOperation => ({
  id: '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11',
  operation: 'retry',
  status: 'running',
  note: null,
  filter: null,
  matched,
  processed,
  affected: processed,
  skipped: 0,
  failed: 0,
  created_at: '2030-01-01T00:00:00.000Z',
  finished_at: null,
});

describe('bulk progress', () => {
  it('draws the share processed', () => {
    expect(progressLine(op(0), 10)).toBe('[----------]  0/300  affected 0  skipped 0  failed 0');
    expect(progressLine(op(150), 10)).toBe('[#####-----]  150/300  affected 150  skipped 0  failed 0');
    expect(progressLine(op(300), 10)).toBe('[##########]  300/300  affected 300  skipped 0  failed 0');
    expect(progressLine(op(0, 0), 4)).toBe('[####]  0/0  affected 0  skipped 0  failed 0');
  });

  it('a dry run says what would change, what is skipped, and how to run it', () => {
    const text = dryRunText(
      {
        dry_run: true,
        operation: 'retry',
        matched: 305,
        eligible: 300,
        ineligible: { executed: 5 },
        sample_ids: ['a'],
      },
      'sched bulk retry ... --yes',
    );
    expect(text).toBe(
      'dry run: retry would change 300 of 305 matched actions (skipped: 5 executed)\nsample:\n  a\nnothing changed; run again with --yes to apply: sched bulk retry ... --yes',
    );
  });
});

describe('bulk target', () => {
  it('filter flags become the filter; a numeric status code is a number', () => {
    expect(
      bulkTarget({
        status: 'failed',
        destinationHost: 'api.example.com',
        lastStatusCode: '503',
        errorClass: 'http',
      }),
    ).toEqual({
      filter: {
        status: 'failed',
        destination_host: 'api.example.com',
        last_status_code: 503,
        error_class: 'http',
      },
    });
    expect(bulkTarget({ lastStatusCode: '5xx' })).toEqual({ filter: { last_status_code: '5xx' } });
    expect(bulkTarget({ destinationOrigin: 'http://127.0.0.1:9000' })).toEqual({
      filter: { destination_origin: 'http://127.0.0.1:9000' },
    });
    expect(bulkTarget({ ids: 'a, b' })).toEqual({ ids: ['a', 'b'] });
  });

  it('the inbox flags are the query keys of GET /v1/actions', () => {
    expect(
      inboxQuery({
        failedAfter: '2030-01-01T00:00:00Z',
        scheduledBefore: '2030-02-01T00:00:00Z',
        errorClass: 'dns',
      }),
    ).toEqual({
      failed_after: '2030-01-01T00:00:00Z',
      scheduled_before: '2030-02-01T00:00:00Z',
      error_class: 'dns',
    });
  });

  it('refuses both, and neither', () => {
    expect(() => bulkTarget({ ids: 'a', status: 'failed' })).toThrow(UsageError);
    expect(() => bulkTarget({})).toThrow(UsageError);
  });
});
