/** The shapes of the JSON columns of `actions`, as the service writes them. */

export interface StoredRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body?: unknown;
}

export interface StoredCoordination {
  on_create?: 'skip_if_exists' | 'replace_existing' | 'cancel_and_replace';
  on_execute?: {
    condition:
      | 'skip_if_previous_pending'
      | 'execute_if_previous_failed'
      | 'execute_if_previous_succeeded'
      | 'wait_for_previous';
    on_condition_not_met?: 'cancel' | 'reschedule' | 'fail';
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
  unit: 'm' | 'h' | 'd' | 'w' | 'M';
  end_type: 'never' | 'count' | 'date';
  max_occurrences?: number;
  end_date?: string;
}
