import { CHAIN_STATES } from '@sched/contract';
import type { Chain } from '@sched/sdk';
import { canCancelChain } from '../allowed.js';
import { href, type Route } from '../router.js';
import { ConfirmButton, DetailPage, Json, StateFilter, Status, useConsole, useLoad, When } from '../ui.js';
import { ListPage, pageOf } from '../ui/list.js';
import { DataTable, Facts } from '../ui/table.js';

function ChainList({ route }: { route: Route }) {
  const status = route.query.get('status') ?? '';
  const page = pageOf(route);
  const list = useLoad(
    (c) => c.chains.list({ ...(status ? { status: status as Chain['status'] } : {}), page, per_page: 20 }),
    [status, page],
    { live: true },
  );
  return (
    <>
      <h1>Chains</h1>
      <StateFilter view="chains" label="Filter chains" states={CHAIN_STATES} selected={status} />
      <ListPage
        list={list}
        noun="chains"
        view="chains"
        query={{ status }}
        empty={
          <p>
            {status ? 'No chain in this state.' : 'No chain yet.'} A chain runs steps one after another:
            create one with <code>sched chains create</code> or <code>POST /v1/chains</code>.
          </p>
        }
      >
        {(rows) => (
          <DataTable
            label="Chains"
            rows={rows}
            columns={[
              { label: 'Name', cell: (c) => <a href={href(`chains/${c.id}`)}>{c.name}</a> },
              { label: 'State', cell: (c) => <Status status={c.status} /> },
              { label: 'Current step', cell: (c) => c.current_step + 1 },
              { label: 'Created', cell: (c) => <When at={c.created_at} /> },
            ]}
          />
        )}
      </ListPage>
    </>
  );
}

function ChainDetail({ id }: { id: string }) {
  const { client, canWrite } = useConsole();
  const loaded = useLoad((c) => c.chains.get(id), [id]);
  return (
    <DetailPage
      back={{ view: 'chains', text: 'All chains' }}
      loaded={loaded}
      what="the chain"
      name={(chain) => chain.name}
      state={(chain) => chain.status}
    >
      {(chain) => (
        <>
          {canWrite && canCancelChain(chain) && (
            <div class="buttons">
              <ConfirmButton
                label="Cancel chain"
                title={`Cancel “${chain.name}”?`}
                danger
                onConfirm={() => client.chains.cancel(chain.id)}
                onDone={loaded.reload}
              >
                Pending and running steps are cancelled; settled steps keep their state (nothing is rolled
                back).
              </ConfirmButton>
            </div>
          )}
          <Facts
            facts={[
              { label: 'Created', value: <When at={chain.created_at} /> },
              { label: 'Completed', value: <When at={chain.completed_at} /> },
              { label: 'On error', value: JSON.stringify(chain.error_handling) },
            ]}
          />
          <h2>Steps</h2>
          <ol class="timeline" aria-label="Steps">
            {chain.steps.map((s) => {
              const context = chain.context.steps[String(s.index)];
              return (
                <li key={s.index} class={`step-${s.status}`}>
                  <h3>
                    {s.index + 1}. {s.name} <span class="muted">({s.type})</span> <Status status={s.status} />
                  </h3>
                  <Facts
                    facts={[
                      { label: 'Started', value: <When at={s.started_at} /> },
                      { label: 'Completed', value: <When at={s.completed_at} /> },
                      { label: 'Outcome', value: s.outcome, show: Boolean(s.outcome) },
                      { label: 'Condition', value: <code>{s.condition}</code>, show: Boolean(s.condition) },
                      { label: 'Error', value: s.error, show: Boolean(s.error), error: true },
                    ]}
                  />
                  {s.action_id && (
                    <a href={href(`actions/${s.action_id}`)}>The step's action and its attempts</a>
                  )}
                  {context && (
                    <details>
                      <summary>Context of this step</summary>
                      <Json value={context} label={`Context of step ${s.index + 1}`} />
                    </details>
                  )}
                </li>
              );
            })}
          </ol>
          <h2>Input</h2>
          <Json value={chain.input} label="The chain's input" />
        </>
      )}
    </DetailPage>
  );
}

export function ChainsPanel({ route }: { route: Route }) {
  const id = route.path.split('/')[1];
  return id ? <ChainDetail id={id} /> : <ChainList route={route} />;
}
