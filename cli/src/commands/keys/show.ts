import type { ApiKey } from '@sched/sdk';

/** The columns of a key in tables: never a secret. */
export const KEY_COLUMNS = ['id', 'name', 'prefix', 'scopes', 'last_used_at', 'expires_at'];

export function keyRow(k: ApiKey): Record<string, unknown> {
  return { ...k, scopes: k.scopes.join(',') };
}
