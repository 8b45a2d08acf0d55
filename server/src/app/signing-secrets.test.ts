import { describe, expect, it } from 'vitest';
import type { Database } from '../persistence/database.js';
import { SigningSecrets } from './signing-secrets.js';

type Secrets = { current: string | null; previous: string | null };

/** A read of the account's secrets the test answers when it chooses. */
function reads() {
  const pending: { resolve(s: Secrets): void; reject(e: Error): void }[] = [];
  const read = () =>
    new Promise<Secrets>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  return { pending, read };
}

/** Whether the promise has settled after the current turn's microtasks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('SigningSecrets.secretsFor', () => {
  const own = 'whsec_current';
  const rotated: Secrets = { current: 'whsec_next', previous: own };

  it('reads once a second at most, and an account that keeps sending never waits for the read', async () => {
    let now = 1_000_000;
    const { pending, read } = reads();
    const secrets = new SigningSecrets({ sql: {} } as unknown as Database, () => new Date(now), read);

    const first = secrets.secretsFor('acc', own);
    expect(pending).toHaveLength(1);
    pending[0]!.resolve({ current: own, previous: null });
    expect(await first).toEqual([own]);

    now += 400;
    expect(await secrets.secretsFor('acc', own)).toEqual([own]);
    expect(pending).toHaveLength(1);

    // Past half its life the entry answers at once and one read goes out beside it.
    now += 200;
    const during = secrets.secretsFor('acc', own);
    expect(await settled(during)).toBe(true);
    expect(await during).toEqual([own]);
    expect(await secrets.secretsFor('acc', own)).toEqual([own]);
    expect(pending).toHaveLength(2);

    // The read finds a rotation: from then on both secrets sign.
    pending[1]!.resolve(rotated);
    await new Promise((r) => setImmediate(r));
    expect(await secrets.secretsFor('acc', own)).toEqual(['whsec_next', own]);
    expect(pending).toHaveLength(2);
  });

  it('waits for a read once what it has is older than a second, and forgets a failed one', async () => {
    let now = 2_000_000;
    const { pending, read } = reads();
    const secrets = new SigningSecrets({ sql: {} } as unknown as Database, () => new Date(now), read);
    const first = secrets.secretsFor('acc', own);
    pending[0]!.resolve({ current: own, previous: null });
    await first;

    now += 1_001;
    const late = secrets.secretsFor('acc', own);
    expect(await settled(late)).toBe(false);
    expect(pending).toHaveLength(2);
    pending[1]!.reject(new Error('database away'));
    await expect(late).rejects.toThrow('database away');

    const again = secrets.secretsFor('acc', own);
    expect(pending).toHaveLength(3);
    pending[2]!.resolve(rotated);
    expect(await again).toEqual(['whsec_next', own]);
  });

  it('keeps what it has when a read beside it fails, and tries again on the next request', async () => {
    let now = 3_000_000;
    const { pending, read } = reads();
    const secrets = new SigningSecrets({ sql: {} } as unknown as Database, () => new Date(now), read);
    const first = secrets.secretsFor('acc', own);
    pending[0]!.resolve({ current: own, previous: null });
    await first;

    now += 600;
    expect(await secrets.secretsFor('acc', own)).toEqual([own]);
    pending[1]!.reject(new Error('database away'));
    await new Promise((r) => setImmediate(r));
    expect(await secrets.secretsFor('acc', own)).toEqual([own]);
    expect(pending).toHaveLength(3);
  });

  it('reads nothing for a request that is not signed', async () => {
    const { pending, read } = reads();
    const secrets = new SigningSecrets({ sql: {} } as unknown as Database, () => new Date(0), read);
    expect(await secrets.secretsFor('acc', null)).toEqual([]);
    expect(pending).toHaveLength(0);
  });
});
