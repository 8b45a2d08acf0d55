import type { ActionStats, Quota } from '@sched/sdk';
import { href } from '../router.js';
import { aboutIf, ErrorNote, Loading, Ms, Status, useLoad, When, WhenLoaded } from '../ui.js';
import { Facts } from '../ui/table.js';

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);

/** Attempts per hour as bars (succeeded over failed); the same figures are in the table under it. */
function DeliveryChart({ hours }: { hours: ActionStats['deliveries']['hours'] }) {
  const most = Math.max(1, ...hours.map((h) => h.attempts));
  const width = 24 * 20;
  const height = 120;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${width} ${height + 18}`}
      role="img"
      aria-label="Delivery attempts per hour over the last 24 hours, succeeded and failed"
    >
      {hours.map((h, i) => {
        const ok = (h.succeeded / most) * height;
        const failed = ((h.attempts - h.succeeded) / most) * height;
        const x = i * 20 + 3;
        const hour = new Date(h.start).getHours();
        return (
          <g key={h.start}>
            <title>{`${new Date(h.start).toLocaleString()}: ${h.attempts} attempts, ${h.succeeded} succeeded, lateness p50 ${h.lateness_p50_ms ?? '—'} ms, p99 ${h.lateness_p99_ms ?? '—'} ms`}</title>
            <rect class="bar-ok" x={x} y={height - ok} width={14} height={ok} />
            <rect class="bar-failed" x={x} y={height - ok - failed} width={14} height={failed} />
            {i % 6 === 0 && (
              <text x={x} y={height + 14} class="axis">
                {`${String(hour).padStart(2, '0')}:00`}
              </text>
            )}
          </g>
        );
      })}
      <line x1={0} x2={width} y1={height + 0.5} y2={height + 0.5} class="baseline" />
    </svg>
  );
}

/** A table's header row: a heading per column. */
function ColumnHeads({ labels }: { labels: readonly string[] }) {
  return (
    <thead>
      <tr>
        {labels.map((label) => (
          <th key={label} scope="col">
            {label}
          </th>
        ))}
      </tr>
    </thead>
  );
}

function QuotaTable({ quota }: { quota: Quota }) {
  const rows: [string, { used: number; limit: number | null }][] = [
    ['Actions', quota.actions],
    ['Emails', quota.emails],
    ['SMS', quota.sms],
    ['Chat messages', quota.chat_messages],
    ['Team members', quota.team_members],
  ];
  return (
    <table>
      <caption>
        {quota.plan} plan, {quota.period.month_name} {quota.period.year}
      </caption>
      <ColumnHeads labels={['Usage', 'Used', 'Limit']} />
      <tbody>
        {rows.map(([name, u]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{u.used}</td>
            <td>{u.limit ?? 'unlimited'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function QuotaSection() {
  const quota = useLoad((c) => c.quota.get(), []);
  return (
    <section aria-labelledby="quota-title">
      <h2 id="quota-title">Quota used</h2>
      {quota.data ? <QuotaTable quota={quota.data} /> : <Loading what="quota" />}
      <ErrorNote error={quota.error} onRetry={quota.reload} />
    </section>
  );
}

export function OverviewPanel() {
  const stats = useLoad((c) => c.stats(), [], { live: true });
  return (
    <>
      <h1>Overview</h1>
      <WhenLoaded loaded={stats} what="figures">
        {(s) => (
          <>
            <section aria-labelledby="states-title">
              <h2 id="states-title">Actions by state</h2>
              <ul class="counts">
                {Object.entries(s.actions_by_status).map(([status, n]) => (
                  <li key={status}>
                    <a href={href('actions', { status })}>
                      <span class="count">
                        {aboutIf(s.estimated_statuses?.some((e) => e === status) ?? false)}
                        {n}
                      </span>{' '}
                      <Status status={status} />
                    </a>
                  </li>
                ))}
              </ul>
              <p>
                <a href={href('approvals')}>
                  {aboutIf(s.approvals_waiting_exact === false)}
                  {s.approvals_waiting} approval{s.approvals_waiting === 1 ? '' : 's'} waiting for an answer
                </a>
              </p>
            </section>
            <section aria-labelledby="deliveries-title">
              <h2 id="deliveries-title">Deliveries, last 24 hours</h2>
              <Facts
                figures
                facts={[
                  { label: 'Attempts', value: s.deliveries.attempts },
                  { label: 'Success rate', value: percent(s.deliveries.success_rate) },
                  { label: 'Lateness p50', value: <Ms ms={s.deliveries.lateness_p50_ms} /> },
                  { label: 'Lateness p99', value: <Ms ms={s.deliveries.lateness_p99_ms} /> },
                ]}
              />
              <DeliveryChart hours={s.deliveries.hours} />
              <p class="legend">
                <span class="key key-ok" aria-hidden="true" /> succeeded{' '}
                <span class="key key-failed" aria-hidden="true" /> failed
              </p>
              <h3>Failing destinations</h3>
              {s.failing_destinations.length === 0 ? (
                <p class="muted">No failed attempt in the last 24 hours.</p>
              ) : (
                <table>
                  <ColumnHeads labels={['Destination', 'Failed', 'Attempts', 'Last failure']} />
                  <tbody>
                    {s.failing_destinations.map((d) => (
                      <tr key={d.origin}>
                        <th scope="row">
                          <a href={href(`destinations/${encodeURIComponent(d.origin)}`)}>
                            <code>{d.origin}</code>
                          </a>
                        </th>
                        <td>
                          <a href={href('failed', { destination_host: d.host })}>
                            {d.failed}
                            <span class="sr-only"> failed to {d.host}, in the failed inbox</span>
                          </a>
                        </td>
                        <td>{d.attempts}</td>
                        <td>
                          <When at={d.last_failed_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <details>
                <summary>The figures per hour</summary>
                <table>
                  <ColumnHeads labels={['Hour', 'Attempts', 'Succeeded', 'Lateness p50', 'Lateness p99']} />
                  <tbody>
                    {s.deliveries.hours
                      .filter((h) => h.attempts > 0)
                      .map((h) => (
                        <tr key={h.start}>
                          <th scope="row">{new Date(h.start).toLocaleString()}</th>
                          <td>{h.attempts}</td>
                          <td>{h.succeeded}</td>
                          <td>
                            <Ms ms={h.lateness_p50_ms} />
                          </td>
                          <td>
                            <Ms ms={h.lateness_p99_ms} />
                          </td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </details>
            </section>
          </>
        )}
      </WhenLoaded>
      <QuotaSection />
    </>
  );
}
