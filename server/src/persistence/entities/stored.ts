import type {
  HTTP_METHODS,
  NotMetPolicy,
  OnCreateRule,
  OnExecuteCondition,
  RecurrenceEndType,
  RecurrenceUnit,
} from '@sched/contract';

/** The shapes of the JSON columns of `actions`, as the service writes them. */

export interface StoredRequest {
  url: string;
  method: (typeof HTTP_METHODS)[number];
  headers: Record<string, string>;
  body?: unknown;
}

export interface StoredCoordination {
  on_create?: OnCreateRule;
  on_execute?: {
    condition: OnExecuteCondition;
    on_condition_not_met?: NotMetPolicy;
    reschedule_delay: number;
    max_reschedules: number;
  };
}

/** The gate of an approval action, with its running state (snoozes, send and expiry times). */
export interface StoredGate {
  message: string;
  channels: string[];
  buttons: [string, string];
  confirmation_mode: 'first_response' | 'all_required';
  max_snoozes: number;
  snooze_count: number;
  timeout: string;
  timeout_ms: number;
  on_timeout: 'cancel' | 'expire' | 'approve';
  escalation: { contacts: string[]; after_hours: number; recipients: StoredRecipientTarget[] } | null;
  sent_at: string | null;
  expires_at: string | null;
  escalated_at: string | null;
  post_approval_action_id: string | null;
}

export interface StoredRecipientTarget {
  reference: string;
  address: string;
  displayName: string;
  targets: Record<string, unknown>[];
}

export interface StoredRecurrence {
  frequency: number;
  unit: RecurrenceUnit;
  end_type: RecurrenceEndType;
  max_occurrences?: number;
  end_date?: string;
}
