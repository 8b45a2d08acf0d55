import { randomBytes } from 'node:crypto';
import type { SigningSecret } from '@sched/contract';
import { MAX_ROTATION_GRACE_MS } from '../domain/auth/api-key.js';
import { parseDuration } from '../domain/schedule/duration.js';
import { replaceSigningSecret, signingSecretOf, signingSecretsAt } from '../persistence/accounts.js';
import type { Database, Sql } from '../persistence/database.js';
import { recordAudit } from './audit.js';
import { ValidationError } from './errors.js';
import { systemClock } from './clock.js';
import type { Clock } from './ports.js';

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * How long a process reuses what it read of an account's secrets to sign. A rotation is seen by the process that
 * made it at once and by the others within this; the overlap covers that for a planned rotation.
 */
const SECRETS_TTL_MS = 1000;
/**
 * From this age on, a read serves what it has and reads again beside it: an account that keeps sending never waits
 * for the read (at 1,000 deliveries a second, every delivery that started during a blocking read each second waited
 * for its round trip), and what it serves was still read at most SECRETS_TTL_MS before.
 */
const REFRESH_AFTER_MS = SECRETS_TTL_MS / 2;

type AccountSecrets = { current: string | null; previous: string | null };
type SecretsRead = { at: number; secrets: Promise<AccountSecrets>; refreshing?: boolean };

/**
 * The account's signing secret (docs/signatures.md): the `/v1/signing-secret` use cases, and the secrets one request
 * of the account is signed with (`secretsFor`).
 */
export class SigningSecrets {
  private readonly read = new Map<string, SecretsRead>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock = systemClock,
    private readonly readSecrets: (
      db: Sql,
      accountId: string,
      now: Date,
    ) => Promise<AccountSecrets> = signingSecretsAt,
  ) {}

  /**
   * The secrets a request is signed with: its own. When that is the account's secret (an action or chain made
   * without one takes it, and rotations re-key it), also the one a rotation replaced while their overlap lasts, so a
   * receiver that has either verifies. A row still holding the replaced secret (claimed just before the rotation)
   * is signed with both too.
   */
  async secretsFor(accountId: string, own: string | null): Promise<string[]> {
    if (own === null) return [];
    const { current, previous } = await this.accountSecrets(accountId);
    if (previous === null || (own !== current && own !== previous)) return [own];
    return current === null ? [previous] : [current, previous];
  }

  /** What the account's secrets were at most SECRETS_TTL_MS ago; a failed read is not remembered. */
  private accountSecrets(accountId: string): Promise<AccountSecrets> {
    const now = this.clock();
    const entry = this.read.get(accountId);
    const age = entry ? now.getTime() - entry.at : Number.POSITIVE_INFINITY;
    if (entry && age <= SECRETS_TTL_MS) {
      if (age >= REFRESH_AFTER_MS && !entry.refreshing) {
        entry.refreshing = true;
        const next: SecretsRead = {
          at: now.getTime(),
          secrets: this.readSecrets(this.database.sql, accountId, now),
        };
        // Taken only if nothing replaced or forgot the entry meanwhile (a rotation here forgets it).
        next.secrets.then(
          () => {
            if (this.read.get(accountId) === entry) this.read.set(accountId, next);
          },
          () => {
            entry.refreshing = false;
          },
        );
      }
      return entry.secrets;
    }
    const fresh: SecretsRead = {
      at: now.getTime(),
      secrets: this.readSecrets(this.database.sql, accountId, now),
    };
    this.read.set(accountId, fresh);
    fresh.secrets.catch(() => {
      if (this.read.get(accountId) === fresh) this.read.delete(accountId);
    });
    return fresh.secrets;
  }

  private forget(accountId: string): void {
    this.read.delete(accountId);
  }

  /** `GET /v1/signing-secret`: the account's signing secret (or nulls) and the end of a rotation's overlap. */
  async get(accountId: string): Promise<SigningSecret> {
    const s = await signingSecretOf(this.database.sql, accountId);
    const overlapping = s.previousUntil !== null && s.previousUntil.getTime() > this.clock().getTime();
    return {
      secret: s.secret,
      created_at: s.createdAt?.toISOString() ?? null,
      previous_expires_at: overlapping ? s.previousUntil!.toISOString() : null,
    };
  }

  /**
   * `POST /v1/signing-secret`: a new Standard Webhooks secret for the account, replacing the current one. Live actions,
   * series and chains signed with the account's secret are re-keyed to it in the same transaction, so a leaked secret
   * stops signing once `overlap` ends (at once with `0s`); until then requests carry both signatures.
   */
  async rotate(accountId: string, input: { overlap?: string } = {}): Promise<SigningSecret> {
    const overlap = input.overlap ?? '24h';
    const overlapMs = /^0+[smhdw]$/.test(overlap) ? 0 : parseDuration(overlap);
    if (overlapMs === null || overlapMs > MAX_ROTATION_GRACE_MS)
      throw ValidationError.field('overlap', 'must be a duration of at most 30d, such as 24h or 0s');
    const secret = newSigningSecret();
    const now = this.clock();
    const until = overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null;
    const replaced = await this.database.transaction(async (db) => {
      const r = await replaceSigningSecret(db, accountId, secret, now, until);
      // Never the secret itself.
      await recordAudit(db, accountId, {
        action: 'signing_secret.create',
        resource: { type: 'account', id: accountId },
        details: {
          replaced: r.had,
          overlap: r.had ? overlap : null,
          rekeyed_actions: r.actions,
          rekeyed_chains: r.chains,
        },
      });
      return r;
    });
    this.forget(accountId);
    return {
      secret,
      created_at: now.toISOString(),
      previous_expires_at: replaced.had && until ? until.toISOString() : null,
    };
  }

  /** `DELETE /v1/signing-secret`: what the account sends without a secret of its own is no longer signed. */
  async remove(accountId: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const r = await replaceSigningSecret(db, accountId, null, this.clock(), null);
      if (r.had)
        await recordAudit(db, accountId, {
          action: 'signing_secret.delete',
          resource: { type: 'account', id: accountId },
          details: { rekeyed_actions: r.actions, rekeyed_chains: r.chains },
        });
    });
    this.forget(accountId);
  }
}
