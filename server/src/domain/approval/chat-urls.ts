/**
 * What a notification channel's URL says about it. Microsoft retired Office 365 connectors (the Teams "incoming
 * webhook", `*.webhook.office.com/webhookb2/…` and the older `outlook.office.com/webhook/…`): they stop
 * delivering, and Power Automate Workflows URLs (`*.logic.azure.com/workflows/…`,
 * `*.api.powerplatform.com/…/workflows/…`) replace them. A connector URL is still accepted and posted to, with a
 * warning on the channel.
 */
export const TEAMS_CONNECTOR_RETIRED =
  'This is an Office 365 connector URL (a Teams incoming webhook), which Microsoft retired: messages may stop arriving. Make a Workflows URL instead ("Post to a channel when a webhook request is received", docs/approvals.md) and set it as webhook_url.';

export function isTeamsConnectorUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  return (
    (host.endsWith('.webhook.office.com') && parsed.pathname.startsWith('/webhookb2/')) ||
    (host === 'outlook.office.com' && parsed.pathname.startsWith('/webhook/')) ||
    (host === 'outlook.office365.com' && parsed.pathname.startsWith('/webhook/'))
  );
}

/** The warnings shown on a channel's view. */
export function chatChannelWarnings(c: { type: 'slack' | 'teams'; webhook_url: string | null }): string[] {
  return c.type === 'teams' && c.webhook_url !== null && isTeamsConnectorUrl(c.webhook_url)
    ? [TEAMS_CONNECTOR_RETIRED]
    : [];
}
