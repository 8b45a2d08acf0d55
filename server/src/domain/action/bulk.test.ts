import { describe, expect, it } from 'vitest';
import { bulkEligibility, isBulkEligible, tallyEligibility } from './bulk.js';

describe('bulk eligibility', () => {
  it('follows the state table', () => {
    expect(bulkEligibility('cancel').states).toEqual([
      'scheduled',
      'resolved',
      'awaiting_response',
      'paused',
    ]);
    expect(bulkEligibility('retry').states).toEqual(['failed']);
    expect([...bulkEligibility('replay').states].sort()).toEqual([
      'cancelled',
      'executed',
      'expired',
      'failed',
    ]);
  });

  it('a retry needs a request; a replay or a cancel does not', () => {
    expect(isBulkEligible('retry', { status: 'failed', hasRequest: true })).toBe(true);
    expect(isBulkEligible('retry', { status: 'failed', hasRequest: false })).toBe(false);
    expect(isBulkEligible('replay', { status: 'failed', hasRequest: false })).toBe(true);
    expect(isBulkEligible('cancel', { status: 'executing', hasRequest: true })).toBe(false);
  });

  it('tallies a dry run by status', () => {
    expect(
      tallyEligibility('retry', [
        { status: 'failed', hasRequest: true, count: 300 },
        { status: 'failed', hasRequest: false, count: 2 },
        { status: 'executed', hasRequest: true, count: 5 },
      ]),
    ).toEqual({ matched: 307, eligible: 300, ineligible: { failed: 2, executed: 5 } });
  });
});
