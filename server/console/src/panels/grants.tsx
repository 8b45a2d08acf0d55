import { ConfirmButton, ErrorNote, Loading, useConsole, useLoad, When } from '../ui.js';

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
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Given by</th>
              <th scope="col">Ends</th>
              {canWrite && (
                <th scope="col">
                  <span class="sr-only">Changes</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {grants.data.map((g) => (
              <tr key={g.id}>
                <td>
                  <code>{g.key}</code>
                </td>
                <td>{g.given_by}</td>
                <td>
                  <When at={g.expires_at} />
                </td>
                {canWrite && (
                  <td class="row-buttons">
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
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
