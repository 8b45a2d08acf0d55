import { describe, expect, it } from 'vitest';
import type { ActionRow } from '../../persistence/actions.js';
import type { Recipient } from '../../persistence/approvals/recipients.js';
import { prepareAction } from './prepare.js';
import { replayDefinition } from './replay.js';

const now = new Date('2030-01-01T12:00:00.000Z');

const webhook = {
  id: 'a1',
  mode: 'webhook',
  name: 'Invoice 42',
  description: null,
  timezone: 'Europe/Berlin',
  request: { url: 'https://api.example.com/hook', method: 'PUT', headers: { 'x-a': '1' }, body: { n: 1 } },
  callback_url: 'https://cb.example.com/',
  max_attempts: 3,
  retry_strategy: 'linear',
  webhook_secret: 'a-secret-of-16-chars',
  dedup_keys: ['inv:42'],
  coordination: null,
  recurrence: null,
  idempotency_key: 'inv-42',
  gate: null,
} as unknown as ActionRow;

describe('replayDefinition', () => {
  it("copies the original's definition, without its idempotency key, due now", () => {
    const body = replayDefinition(webhook, [], {}, now);
    expect(body).toEqual({
      mode: 'webhook',
      name: 'Invoice 42',
      timezone: 'Europe/Berlin',
      scheduled_for: '2030-01-01T12:00:00.000Z',
      request: {
        url: 'https://api.example.com/hook',
        method: 'PUT',
        headers: { 'x-a': '1' },
        body: { n: 1 },
      },
      callback_url: 'https://cb.example.com/',
      max_attempts: 3,
      retry_strategy: 'linear',
      webhook_secret: 'a-secret-of-16-chars',
      dedup_keys: ['inv:42'],
    });
    // What the create path makes of it is a valid action.
    const prepared = prepareAction(body, { plan: 'business', now, allowPrivateDestinations: false });
    expect(prepared.ok).toBe(true);
  });

  it('the overrides replace the schedule, the headers and the body', () => {
    const body = replayDefinition(
      webhook,
      [],
      { schedule: { wait: '10m' }, timezone: 'UTC', request: { headers: { 'x-b': '2' }, body: { n: 2 } } },
      now,
    );
    expect(body).toMatchObject({
      schedule: { wait: '10m' },
      timezone: 'UTC',
      request: { headers: { 'x-b': '2' }, body: { n: 2 } },
    });
    expect(body.scheduled_for).toBeUndefined();
  });

  it("an approval's gate comes back with its recipients as they were given", () => {
    const approval = {
      ...webhook,
      mode: 'approval',
      request: null,
      gate: {
        message: 'Deploy?',
        channels: ['email'],
        buttons: ['Go', 'Stop'],
        confirmation_mode: 'first_response',
        max_snoozes: 2,
        snooze_count: 1,
        timeout: '2h',
        timeout_ms: 7_200_000,
        on_timeout: 'expire',
        escalation: { contacts: ['boss@example.com'], after_hours: 1, recipients: [] },
        sent_at: '2029-12-31T00:00:00.000Z',
        expires_at: null,
        escalated_at: null,
        post_approval_action_id: null,
      },
    } as unknown as ActionRow;
    const recipients = [
      { role: 'recipient', reference: 'ops@example.com' },
      { role: 'escalation', reference: 'boss@example.com' },
    ] as unknown as Recipient[];
    const body = replayDefinition(approval, recipients, {}, now);
    expect(body.gate).toEqual({
      message: 'Deploy?',
      recipients: ['ops@example.com'],
      channels: ['email'],
      buttons: ['Go', 'Stop'],
      confirmation_mode: 'first_response',
      comment: 'optional',
      max_snoozes: 2,
      timeout: '2h',
      on_timeout: 'expire',
      escalation: { contacts: ['boss@example.com'], after_hours: 1 },
    });
    expect(body.request).toBeUndefined();
  });
});
