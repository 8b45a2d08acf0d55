import type { Chain } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../runtime.js';
import { describeChain, readChainFile } from './show.js';

const chain: Chain = {
  id: '0b6c2a3e-0000-4000-8000-000000000001',
  name: 'Order for Ann',
  status: 'running',
  current_step: 1,
  error_handling: 'fail_chain',
  input: {},
  context: { steps: { '0': { status: 'executed', response: { order_id: 'A-17' } } } },
  callback_url: null,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.200Z',
  completed_at: null,
  steps: [
    {
      index: 0,
      name: 'create order',
      type: 'webhook',
      status: 'completed',
      outcome: 'executed',
      condition: null,
      error: null,
      started_at: '2026-11-22T10:00:00.012Z',
      completed_at: '2026-11-22T10:00:01.512Z',
      action_id: '0b6c2a3e-0000-4000-8000-000000000002',
    },
    {
      index: 1,
      name: 'manager approval',
      type: 'approval',
      status: 'running',
      outcome: null,
      condition: null,
      error: null,
      started_at: '2026-11-22T10:00:01.600Z',
      completed_at: null,
      action_id: '0b6c2a3e-0000-4000-8000-000000000003',
    },
  ],
};

describe('sched chains', () => {
  it('get shows each step with its status and timing as a table', () => {
    const lines = describeChain(chain).split('\n');
    const header = lines.findIndex((l) => l.startsWith('STEP'));
    expect(lines[header]).toMatch(
      /^STEP\s+NAME\s+TYPE\s+STATUS\s+OUTCOME\s+STARTED_AT\s+COMPLETED_AT\s+TOOK\s+ERROR$/,
    );
    expect(lines[header + 1]).toMatch(
      /^0\s+create order\s+webhook\s+completed\s+executed\s+\S+\s+\S+\s+1\.5s\s+-$/,
    );
    expect(lines[header + 2]).toMatch(/^1\s+manager approval\s+approval\s+running\s+-\s+\S+\s+-\s+-\s+-$/);
    expect(lines.join('\n')).toContain('status          running');
  });

  it('create reads the definition from a file or stdin (-) and refuses what is not JSON', () => {
    const files: Record<string, string> = {
      'chain.json': '{"name":"x","steps":[]}',
      '-': '{"name":"stdin"}',
    };
    expect(readChainFile('chain.json', (p) => files[p]!)).toEqual({ name: 'x', steps: [] });
    expect(readChainFile('-', (p) => files[p]!)).toEqual({ name: 'stdin' });
    expect(() => readChainFile('-', () => 'not json')).toThrow(UsageError);
    expect(() => readChainFile('-', () => 'not json')).toThrow(/^stdin is not JSON/);
  });
});
