import type { Destination, DestinationTestResult } from '@sched/sdk';
import { formatFields } from '../../runtime.js';

/** The columns of `sched destinations list`. */
export const DESTINATION_COLUMNS = [
  'origin',
  'host',
  'paused',
  'circuit_state',
  'configured',
  'actions',
  'scheduled',
  'in_flight',
  'failed',
];

/** A circuit for people: its state, since when, the next probe, and its settings. */
function describeCircuit(c: Destination['circuit']): string {
  const settings = c.enabled
    ? `opens at ${c.failure_rate} of ${c.min_requests}+ in ${c.window}, open ${c.open_for}, disabled after ${c.disable_after}`
    : 'off';
  const since = c.opened_at ? `, since ${c.opened_at}` : '';
  const probe = c.next_probe_at ? `, probe at ${c.next_probe_at}` : '';
  return `${c.state}${since}${probe} (${settings})`;
}

/** One destination for people: settings, pause, load and the last 24 hours. */
export function describeDestination(d: Destination): string {
  const flow = d.flow
    ? [
        d.flow.parallelism !== undefined ? `parallelism ${d.flow.parallelism}` : null,
        d.flow.rate !== undefined ? `${d.flow.rate} per ${d.flow.period ?? '1s'}` : null,
      ]
        .filter(Boolean)
        .join(', ')
    : 'none';
  const day = d.stats.last_24h;
  return formatFields([
    ['origin', d.origin],
    ['host', d.host],
    [
      'paused',
      d.pause ? `yes, until ${d.pause.until ?? 'resumed'}${d.pause.note ? ` (${d.pause.note})` : ''}` : 'no',
    ],
    ['flow', flow],
    ['circuit', describeCircuit(d.circuit)],
    ['in_flight', d.in_flight],
    ['waiting', d.waiting],
    [
      'last_24h',
      `${day.attempts} attempts, ${day.failures} failed, p50 ${day.p50_ms ?? '-'} ms, p99 ${day.p99_ms ?? '-'} ms`,
    ],
  ]);
}

/** A test-send's outcome for people: the status or why none came, the time, and the start of the answer. */
export function describeTest(t: DestinationTestResult): string {
  return formatFields([
    ['url', t.url],
    ['status', t.status ?? `no answer: ${t.error ?? 'unknown error'}`],
    ['duration', `${t.duration_ms} ms`],
    ['signed', t.signed ? 'yes' : 'no (the account has no signing secret)'],
    ...(t.response_excerpt ? ([['response', t.response_excerpt]] as [string, unknown][]) : []),
  ]);
}
