import { useState } from 'preact/hooks';
import { href, type Route } from '../router.js';
import {
  activeState,
  ConfirmButton,
  CopyButton,
  DetailPage,
  Json,
  Notice,
  useConsole,
  useLoad,
  When,
} from '../ui.js';
import { ListPage, pageOf } from '../ui/list.js';
import { DataTable, Facts } from '../ui/table.js';

function TemplateList({ route }: { route: Route }) {
  const page = pageOf(route);
  const list = useLoad((c) => c.templates.list({ page, per_page: 25 }), [page]);
  return (
    <>
      <h1>Templates</h1>
      <ListPage
        list={list}
        noun="templates"
        view="templates"
        empty={
          <p>
            No template yet. Save one with <code>sched templates create</code> or{' '}
            <code>POST /v1/templates</code>: it gives a trigger URL that creates an action per call.
          </p>
        }
      >
        {(rows) => (
          <DataTable
            label="Templates"
            rows={rows}
            columns={[
              { label: 'Name', cell: (t) => <a href={href(`templates/${t.id}`)}>{t.name}</a> },
              { label: 'Type', cell: (t) => (t.mode ? `${t.type} (${t.mode})` : t.type) },
              { label: 'Active', cell: (t) => (t.is_active ? 'yes' : 'no') },
              { label: 'Triggers', cell: (t) => t.trigger_count },
              { label: 'Last triggered', cell: (t) => <When at={t.last_triggered_at} /> },
            ]}
          />
        )}
      </ListPage>
    </>
  );
}

function TemplateDetail({ id }: { id: string }) {
  const { client, canWrite } = useConsole();
  const loaded = useLoad((c) => c.templates.get(id), [id]);
  // The full URL exists only in the regenerate answer (it is stored hashed): shown once, here.
  const [fresh, setFresh] = useState<string>();
  return (
    <DetailPage
      back={{ view: 'templates', text: 'All templates' }}
      loaded={loaded}
      what="the template"
      name={(t) => t.name}
      state={(t) => activeState(t.is_active)}
    >
      {(t) => (
        <>
          <section aria-labelledby="trigger-title">
            <h2 id="trigger-title">Trigger URL</h2>
            <p>
              <code class="url">{fresh ?? t.trigger_url}</code>{' '}
              <CopyButton text={fresh ?? t.trigger_url} label="Copy URL" />
            </p>
            {fresh ? (
              <Notice>
                This is the new URL in full: copy it now, it is shown only once. The old URL answers 404 from
                now on.
              </Notice>
            ) : (
              <p class="muted">Shown masked: the full URL is in the create and regenerate answers only.</p>
            )}
            {canWrite && (
              <div class="buttons">
                <ConfirmButton
                  label="Regenerate URL"
                  title="Regenerate the trigger URL?"
                  danger
                  onConfirm={async () => setFresh((await client.templates.regenerateToken(t.id)).trigger_url)}
                >
                  Whoever uses the current URL will get 404 from now on.
                </ConfirmButton>
                <ConfirmButton
                  label={t.is_active ? 'Deactivate' : 'Activate'}
                  title={t.is_active ? 'Deactivate this template?' : 'Activate this template?'}
                  onConfirm={() => client.templates.toggleActive(t.id)}
                  onDone={loaded.reload}
                >
                  {t.is_active
                    ? 'Its trigger URL will refuse calls until it is activated again.'
                    : 'Its trigger URL will accept calls again.'}
                </ConfirmButton>
              </div>
            )}
          </section>
          <section aria-labelledby="tstats-title">
            <h2 id="tstats-title">Trigger statistics</h2>
            <Facts
              facts={[
                { label: 'Triggers', value: t.trigger_count },
                { label: 'Refused triggers', value: t.failed_trigger_count },
                { label: 'Last triggered', value: <When at={t.last_triggered_at} /> },
                { label: 'Last refused', value: <When at={t.last_failed_at} /> },
                { label: 'Why', value: t.last_error, show: Boolean(t.last_error), error: true },
              ]}
            />
          </section>
          <section aria-labelledby="tdef-title">
            <h2 id="tdef-title">Definition</h2>
            <Json
              label="The template's definition"
              value={{
                type: t.type,
                mode: t.mode,
                placeholders: t.placeholders,
                request_config: t.request_config,
                gate_config: t.gate_config,
                chain_steps: t.chain_steps,
                max_attempts: t.max_attempts,
                retry_strategy: t.retry_strategy,
                signed: t.signed,
                callback_url: t.callback_url,
                dedup_keys: t.dedup_keys,
              }}
            />
          </section>
        </>
      )}
    </DetailPage>
  );
}

export function TemplatesPanel({ route }: { route: Route }) {
  const id = route.path.split('/')[1];
  return id ? <TemplateDetail id={id} /> : <TemplateList route={route} />;
}
