import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ALL_STEP_OUTCOMES,
  Chain,
  ChainCallback,
  ChainCreateBody,
  ChainStepInput,
  STEP_OUTCOMES,
  STEP_TYPE_ALIASES,
} from './chain.js';

/** Issues as the 422 body shows them: dotted path -> messages. */
function errorsOf(schema: z.ZodType, value: unknown): Record<string, string[]> {
  const result = schema.safeParse(value);
  if (result.success) return {};
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.join('.');
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  return errors;
}

const http = { name: 'order', type: 'http_call', url: 'https://shop.example/orders' };
const gate = { name: 'approve', type: 'gated', gate: { message: 'OK?', recipients: ['boss@example.com'] } };
const delay = { name: 'pause', type: 'delay', delay: '5m' };

describe('ChainCreateBody', () => {
  it('accepts the three request types and fills the defaults', () => {
    const parsed = ChainCreateBody.parse({ name: 'c', steps: [http, gate, delay] });
    expect(parsed.error_handling).toBe('fail_chain');
    expect(parsed.input).toEqual({});
    const [first, second] = parsed.steps;
    expect(first).toMatchObject({ method: 'POST', headers: {} });
    expect(second).toMatchObject({ gate: { timeout: '7d', on_timeout: 'cancel', max_snoozes: 5 } });
  });

  it('accepts the aliases on input, with the `wait` duration field', () => {
    const steps = [
      { ...http, type: 'webhook' },
      { ...gate, type: 'approval' },
      { name: 'w', type: 'wait', wait: '1h' },
    ];
    expect(ChainCreateBody.safeParse({ name: 'c', steps }).success).toBe(true);
  });

  it.each([
    [1, 'Too small'],
    [21, 'Too big'],
  ])('refuses %i steps at `steps`', (count, message) => {
    const steps = Array.from({ length: count }, () => delay);
    expect(errorsOf(ChainCreateBody, { name: 'c', steps }).steps?.[0]).toContain(message);
  });

  it('accepts 2 and 20 steps', () => {
    for (const count of [2, 20]) {
      const steps = Array.from({ length: count }, () => delay);
      expect(ChainCreateBody.safeParse({ name: 'c', steps }).success).toBe(true);
    }
  });

  it('names the failing field of the step that fails', () => {
    const errors = errorsOf(ChainCreateBody, {
      name: 'x'.repeat(256),
      steps: [
        { ...http, url: undefined },
        { ...gate, gate: { recipients: ['a@example.com'] } },
        { name: 'd', type: 'delay' },
        { ...http, condition: 42 },
        { name: 'odd', type: 'teleport' },
        { ...delay, delay: 'soon' },
      ],
      error_handling: 'retry_forever',
    });
    expect(Object.keys(errors).sort()).toEqual([
      'error_handling',
      'name',
      'steps.0.url',
      'steps.1.gate.message',
      'steps.2.delay',
      'steps.3.condition',
      'steps.4.type',
      'steps.5.delay',
    ]);
  });

  it('refuses a delay step with both `delay` and `wait`', () => {
    expect(errorsOf(ChainStepInput, { ...delay, wait: '1m' })).toEqual({
      delay: ['give exactly one of delay or wait'],
    });
  });

  it('refuses an empty condition and a name of blanks', () => {
    const errors = errorsOf(ChainCreateBody, { name: '   ', steps: [{ ...http, condition: ' ' }, delay] });
    expect(Object.keys(errors).sort()).toEqual(['name', 'steps.0.condition']);
  });
});

describe('the chain vocabulary', () => {
  it('maps every request type to its alias', () => {
    expect(STEP_TYPE_ALIASES).toEqual({ http_call: 'webhook', gated: 'approval', delay: 'wait' });
    expect(Object.isFrozen(STEP_TYPE_ALIASES)).toBe(true);
  });

  it('lists the step outcomes of the interface, plus failed for a step that could not run', () => {
    expect(STEP_OUTCOMES).toEqual({
      webhook: ['executed', 'failed', 'skipped'],
      approval: ['confirmed', 'declined', 'skipped', 'failed'],
      wait: ['executed', 'skipped', 'failed'],
    });
    expect([...ALL_STEP_OUTCOMES].sort()).toEqual(['confirmed', 'declined', 'executed', 'failed', 'skipped']);
  });
});

describe('views and callbacks', () => {
  const step = {
    index: 0,
    name: 'order',
    type: 'webhook',
    status: 'completed',
    outcome: 'executed',
    condition: null,
    error: null,
    started_at: '2026-01-01T00:00:00.000Z',
    completed_at: '2026-01-01T00:00:01.000Z',
    action_id: '0b6c2a3e-0000-4000-8000-000000000002',
  };

  it('reads a detail view with context.steps.N', () => {
    const chain = {
      id: '6d1c6f0e-8b43-4b8e-9a57-0f3a2b7c9d11',
      name: 'c',
      status: 'running',
      current_step: 1,
      steps: [step],
      context: { steps: { '0': { status: 'executed', response: { order_id: 7 } } } },
      input: {},
      error_handling: 'fail_chain',
      callback_url: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      completed_at: null,
    };
    expect(Chain.parse(chain).context.steps['0']?.response).toEqual({ order_id: 7 });
    expect(Chain.safeParse({ ...chain, steps: [{ ...step, type: 'http_call' }] }).success).toBe(false);
  });

  it('tells the chain events apart by `event`', () => {
    const envelope = {
      id: '0b6c2a3e-0000-4000-8000-000000000009',
      chain_id: '6d1c6f0e-8b43-4b8e-9a57-0f3a2b7c9d11',
      chain_name: 'c',
      timestamp: '2026-01-01T00:00:00.000Z',
    };
    const { index, name, type, status, outcome, error } = step;
    const result = { index, name, type, status, outcome, error };
    expect(
      ChainCallback.safeParse({
        ...envelope,
        event: 'chain.completed',
        payload: { status: 'completed', steps: [result] },
      }).success,
    ).toBe(true);
    expect(
      ChainCallback.safeParse({
        ...envelope,
        event: 'chain.failed',
        payload: { status: 'completed', steps: [] },
      }).success,
    ).toBe(false);
  });
});

describe('OpenAPI readiness', () => {
  it('converts every chain schema to JSON Schema both ways', () => {
    for (const schema of [ChainCreateBody, Chain, ChainCallback]) {
      for (const io of ['input', 'output'] as const) {
        expect(() =>
          z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }),
        ).not.toThrow();
      }
    }
  });
});
