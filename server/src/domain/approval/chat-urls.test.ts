import { describe, expect, it } from 'vitest';
import { chatChannelWarnings, isTeamsConnectorUrl, TEAMS_CONNECTOR_RETIRED } from './chat-urls.js';

describe('Teams URLs', () => {
  it('tells retired connector URLs from Workflows URLs', () => {
    expect(
      isTeamsConnectorUrl('https://contoso.webhook.office.com/webhookb2/abc@def/IncomingWebhook/x/y'),
    ).toBe(true);
    expect(isTeamsConnectorUrl('https://outlook.office.com/webhook/abc/IncomingWebhook/x/y')).toBe(true);
    expect(
      isTeamsConnectorUrl(
        'https://prod-12.westus.logic.azure.com:443/workflows/0a1b/triggers/manual/paths/invoke?api-version=2016-06-01&sig=s',
      ),
    ).toBe(false);
    expect(
      isTeamsConnectorUrl(
        'https://default1234.56.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/ab/triggers/manual/paths/invoke?sig=s',
      ),
    ).toBe(false);
    expect(isTeamsConnectorUrl('not a url')).toBe(false);
  });

  it('warns on a Teams channel with a connector URL only', () => {
    const connector = 'https://contoso.webhook.office.com/webhookb2/abc/IncomingWebhook/x/y';
    expect(chatChannelWarnings({ type: 'teams', webhook_url: connector })).toEqual([TEAMS_CONNECTOR_RETIRED]);
    expect(chatChannelWarnings({ type: 'slack', webhook_url: connector })).toEqual([]);
    expect(
      chatChannelWarnings({ type: 'teams', webhook_url: 'https://x.logic.azure.com/workflows/a' }),
    ).toEqual([]);
  });
});
