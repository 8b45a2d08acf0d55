import type { Destination } from '@sched/sdk';
import { formatFields } from '../../runtime.js';

/** The columns of `sched destinations list`. */
export const DESTINATION_COLUMNS = [
  'host',
  'paused',
  'configured',
  'actions',
  'scheduled',
  'in_flight',
  'failed',
];

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
    ['host', d.host],
    [
      'paused',
      d.pause ? `yes, until ${d.pause.until ?? 'resumed'}${d.pause.note ? ` (${d.pause.note})` : ''}` : 'no',
    ],
    ['flow', flow],
    ['circuit', d.circuit.state],
    ['in_flight', d.in_flight],
    ['waiting', d.waiting],
    [
      'last_24h',
      `${day.attempts} attempts, ${day.failures} failed, p50 ${day.p50_ms ?? '-'} ms, p99 ${day.p99_ms ?? '-'} ms`,
    ],
  ]);
}
