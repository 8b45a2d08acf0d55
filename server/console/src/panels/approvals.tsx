import { ACTION_STATES, GATE_CHANNEL, type GateChannelName, RECIPIENT_STATUS } from '@sched/contract';
import type { ApprovalSummary, PendingApprovalsQuery, Recipient } from '@sched/sdk';
import { useState } from 'preact/hooks';
import { canReassign, canRemind } from '../allowed.js';
import { href, type Route } from '../router.js';
import {
  AnySelect,
  ConfirmButton,
  FilterForm,
  FilterText,
  Notice,
  Status,
  useConsole,
  useLoad,
  When,
  words,
} from '../ui.js';
import { ListPage } from '../ui/list.js';
import { DataTable } from '../ui/table.js';
import { GrantList } from './grants.js';
import { NewApproval } from './new-approval.js';

/** `GET /v1/approvals` answers this state when none is asked for. */
const DEFAULT_STATE = 'awaiting_response';
const CHANNELS = Object.values(GATE_CHANNEL);

interface Filters {
  status?: string;
  recipient?: string;
  overdue?: 'true' | 'false';
  channel?: GateChannelName;
  page?: string;
}

/** The filters as the URL carries them (a view is shared by its link); unknown values are dropped. */
function filtersOf(query: URLSearchParams): Filters {
  const f: Filters = {};
  const status = query.get('status');
  if (status) f.status = status;
  const recipient = query.get('recipient');
  if (recipient) f.recipient = recipient;
  const overdue = query.get('overdue');
  if (overdue === 'true' || overdue === 'false') f.overdue = overdue;
  const channel = CHANNELS.find((c) => c === query.get('channel'));
  if (channel) f.channel = channel;
  const page = query.get('page');
  if (page) f.page = page;
  return f;
}

function ApprovalFilters({ filters }: { filters: Filters }) {
  return (
    <FilterForm
      view="approvals"
      label="Filter approvals"
      names={['status', 'recipient', 'overdue', 'channel']}
      defaults={{ status: DEFAULT_STATE }}
    >
      <label>
        State
        <select name="status">
          {ACTION_STATES.map((s) => (
            <option key={s} value={s} selected={s === (filters.status ?? DEFAULT_STATE)}>
              {words(s)}
            </option>
          ))}
        </select>
      </label>
      <FilterText
        name="recipient"
        label="Recipient"
        value={filters.recipient}
        placeholder="ada@example.com or contact:<id>"
      />
      <label>
        Overdue
        <select name="overdue">
          <option value="">any</option>
          <option value="true" selected={filters.overdue === 'true'}>
            overdue only
          </option>
          <option value="false" selected={filters.overdue === 'false'}>
            not overdue
          </option>
        </select>
      </label>
      <label>
        Channel
        <AnySelect name="channel" values={CHANNELS} selected={filters.channel} />
      </label>
    </FilterForm>
  );
}

/**
 * `POST /v1/actions/{id}/recipients/{recipient_id}/reassign`: who takes a recipient's place (an address, a phone,
 * `contact:<id>:email`, `channel:<id>` or a team member id) and why, in the confirmation dialog itself.
 */
export function ReassignButton(props: {
  actionId: string;
  actionName: string;
  recipient: Pick<Recipient, 'id' | 'display_name' | 'email'>;
  onDone: () => void;
}) {
  const { client } = useConsole();
  const [to, setTo] = useState('');
  const [reason, setReason] = useState('');
  const { recipient: r } = props;
  return (
    <ConfirmButton
      label="Reassign"
      context={`${r.display_name} on ${props.actionName}`}
      title={`Reassign ${r.display_name} on “${props.actionName}”?`}
      onConfirm={async () => {
        if (!to.trim()) throw new Error('Say who takes over.');
        await client.reassign(props.actionId, r.id, {
          to: to.trim(),
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        });
      }}
      onDone={() => {
        setTo('');
        setReason('');
        props.onDone();
      }}
    >
      <p>
        {r.email}'s links stop working; whoever takes over gets a link of their own at once (if the request
        has gone out), required if {r.display_name} was.
      </p>
      <p>
        <label>
          Hand over to{' '}
          <input
            value={to}
            required
            onInput={(e) => setTo(e.currentTarget.value)}
            placeholder="grace@example.com"
          />
        </label>
      </p>
      <p>
        <label>
          Reason <input value={reason} maxLength={500} onInput={(e) => setReason(e.currentTarget.value)} />
        </label>
      </p>
    </ConfirmButton>
  );
}

/** Who the approval waits on: each recipient with their channels and state, and a reassignment where it may be. */
function Recipients({ approval, onChange }: { approval: ApprovalSummary; onChange: () => void }) {
  const { canWrite } = useConsole();
  return (
    <ul class="recipients" aria-label={`Recipients of ${approval.name}`}>
      {approval.recipients.map((r) => (
        <li key={r.id}>
          <Status status={r.status} /> {r.display_name}
          {r.display_name !== r.email && <span class="muted"> {r.email}</span>}{' '}
          <span class="muted">
            via {r.channels.join(', ')}
            {r.role === 'escalation' ? ' (escalation)' : ''}
            {r.reassigned_from &&
              `, took over from ${approval.recipients.find((x) => x.id === r.reassigned_from)?.display_name ?? 'another'}`}
          </span>
          {r.responded_at && (
            <>
              {' '}
              · answered <When at={r.responded_at} />
            </>
          )}
          {canWrite && canReassign(approval, r) && (
            <>
              {' '}
              <ReassignButton
                actionId={approval.id}
                actionName={approval.name}
                recipient={r}
                onDone={onChange}
              />
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * Approvals and who they wait on, nearest timeout first (`GET /v1/approvals`), with the filters of that endpoint in
 * the URL; a reminder to who has not answered from each row.
 */
export function ApprovalsPanel({ route }: { route: Route }) {
  const { canWrite } = useConsole();
  // A read-scope session gets the list: the form would only end in a 403.
  return route.path === 'approvals/new' && canWrite ? <NewApproval /> : <ApprovalList route={route} />;
}

function ApprovalList({ route }: { route: Route }) {
  const { client, canWrite } = useConsole();
  const filters = filtersOf(route.query);
  const key = JSON.stringify(filters);
  const [notice, setNotice] = useState<string>();
  const list = useLoad(
    (c) => {
      const { page, ...rest } = filters;
      const query: PendingApprovalsQuery = { ...rest, page: Number(page ?? 1), per_page: 25 };
      return c.pendingApprovals(query);
    },
    [key],
    { live: true },
  );
  return (
    <>
      <h1>Approvals waiting</h1>
      {canWrite && (
        <p>
          <a class="button primary" href={href('approvals/new')}>
            New approval
          </a>
        </p>
      )}
      <ApprovalFilters key={key} filters={filters} />
      <Notice>{notice}</Notice>
      <ListPage list={list} noun="approvals" view="approvals" query={{ ...filters }}>
        {(rows) => (
          <>
            <DataTable
              rows={rows}
              caption={`${words(filters.status ?? DEFAULT_STATE)}, nearest timeout first (not yet sent last)`}
              columns={[
                {
                  label: 'Approval',
                  cell: (a) => (
                    <>
                      <a href={href(`actions/${a.id}`)}>{a.name}</a>
                      <div class="muted">
                        {words(a.confirmation_mode)}
                        {a.min_approvals !== null ? ` (${a.min_approvals} needed)` : ''}
                      </div>
                    </>
                  ),
                },
                {
                  label: 'State',
                  cell: (a) => (
                    <>
                      <Status status={a.status} /> {a.overdue && <Status status="overdue" />}
                    </>
                  ),
                },
                {
                  label: 'Times out',
                  cell: (a) =>
                    a.expires_at ? <When at={a.expires_at} /> : <span class="muted">not sent yet</span>,
                },
                { label: 'Reminders', cell: (a) => a.reminders_sent },
                {
                  label: 'Recipients',
                  cell: (a) => (
                    <Recipients
                      approval={a}
                      onChange={() => {
                        setNotice(`“${a.name}” has a new recipient.`);
                        list.reload();
                      }}
                    />
                  ),
                },
                canWrite && {
                  label: 'Actions',
                  hiddenLabel: true,
                  cell: (a) =>
                    canRemind(a) && (
                      <ConfirmButton
                        label="Remind"
                        context={a.name}
                        title={`Remind the recipients of “${a.name}”?`}
                        onConfirm={() => client.remind(a.id)}
                        onDone={() => {
                          setNotice(`A reminder to who has not answered “${a.name}” is on its way.`);
                          list.reload();
                        }}
                      >
                        The approval message goes again, now, to the{' '}
                        {a.recipients.filter((r) => r.status === RECIPIENT_STATUS.pending).length}{' '}
                        recipient(s) who have not answered, with new links (earlier links keep working). It
                        does not count against the gate's reminder limit.
                      </ConfirmButton>
                    ),
                },
              ]}
            />
            {rows.length === 0 && <p class="muted">No approval matches these filters.</p>}
          </>
        )}
      </ListPage>
      <GrantList />
    </>
  );
}
