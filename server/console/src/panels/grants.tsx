import { ConfirmButton, ErrorNote, Loading, useConsole, useLoad, When } from '../ui.js';
import { DataTable } from '../ui/table.js';

/**
 * The standing grants approvers gave (`GET /v1/grants`): while one lives, an approval with its key is confirmed at
 * once. A write key may revoke one (`DELETE /v1/grants/{id}`).
 */
export function GrantList() {
  const { client, canWrite } = useConsole();
  const grants = useLoad((c) => c.grants.list(), []);
  return (
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">Standing grants</h2>
      <ErrorNote error={grants.error} />
      {!grants.data && !grants.error && <Loading what="grants" />}
      {grants.data && grants.data.length === 0 && (
        <p class="muted">No live grant: every request asks people.</p>
      )}
      {grants.data && grants.data.length > 0 && (
        <DataTable
          rows={grants.data}
          columns={[
            { label: 'Key', cell: (g) => <code>{g.key}</code> },
            { label: 'Given by', cell: (g) => g.given_by },
            { label: 'Ends', cell: (g) => <When at={g.expires_at} /> },
            canWrite && {
              label: 'Changes',
              hiddenLabel: true,
              class: 'row-buttons',
              cell: (g) => (
                <ConfirmButton
                  label="Revoke"
                  context={g.key}
                  title={`Revoke the grant for “${g.key}”?`}
                  danger
                  onConfirm={() => client.grants.revoke(g.id)}
                  onDone={grants.reload}
                >
                  The next request with this key asks its recipients again.
                </ConfirmButton>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}
