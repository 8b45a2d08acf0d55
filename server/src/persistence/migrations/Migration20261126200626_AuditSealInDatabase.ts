import { randomUUID } from 'node:crypto';
import { Migration } from '@mikro-orm/migrations';
import { type AuditEventColumns, auditEventOfColumns, canonicalParts } from '../../domain/audit/chain.js';

/**
 * The audit sealer runs in the database (docs/performance.md, audit writes). Each pending event carries its id and
 * its canonical JSON cut around the `seq` it will get (`canon_head`, `canon_tail`, printed by `canonicalJson` when
 * the event is written), and `audit_seal(account, limit)` chains an account's pending events in one call:
 * `hash = sha256(prev_hash ‖ canon_head ‖ seq ‖ canon_tail)`, the formula of docs/audit.md over the very text
 * `canonicalJson` printed (the aggregate `audit_chain` carries the previous hash from row to row). `audit_pending`
 * keeps one index, its primary key `(account_id, n)`. The functions are MikroORM routines
 * (persistence/entities/audit.ts); their DDL here is what MikroORM generated from them.
 */
export class Migration20261126200626_AuditSealInDatabase extends Migration {
  override name = 'Migration20261126200626_AuditSealInDatabase';

  override async up(): Promise<void> {
    await this.execute(
      `alter table "audit_pending" add "id" uuid null, add "canon_head" text null, add "canon_tail" text null;`,
    );
    // Events left pending by an earlier build get their id and canonical text here, as a new one is written.
    const legacy = await this.execute(
      `select n, at, action, actor_type, actor_id, actor_email, resource_type, resource_id, channel, ip, user_agent,
       request_id, details from audit_pending order by n`,
    );
    for (const row of legacy) {
      const columns = row as unknown as AuditEventColumns & { n: string; at: Date | string };
      const event = auditEventOfColumns({
        ...columns,
        id: randomUUID(),
        at: new Date(columns.at).toISOString(),
        details: typeof columns.details === 'string' ? JSON.parse(columns.details) : columns.details,
      });
      const { head, tail } = canonicalParts(event);
      await this.execute(`update "audit_pending" set id = ?, canon_head = ?, canon_tail = ? where n = ?`, [
        event.id,
        head,
        tail,
        columns.n,
      ]);
    }
    await this.execute(
      `alter table "audit_pending" alter column "id" set not null, alter column "canon_head" set not null, alter column "canon_tail" set not null;`,
    );
    await this.execute(`drop index "audit_pending_account_id_n_index";`);
    await this.execute(`alter table "audit_pending" drop constraint "audit_pending_pkey";`);
    await this.execute(`alter table "audit_pending" add primary key ("account_id", "n");`);

    await this.execute(STEP);
    await this.execute(
      `create aggregate "audit_chain"(text, bigint, text, text) (sfunc = "audit_chain_step", stype = text);`,
    );
    await this.execute(SEAL);
  }

  override async down(): Promise<void> {
    await this.execute(`drop function if exists "audit_seal"(uuid, integer);`);
    await this.execute(`drop aggregate if exists "audit_chain"(text, bigint, text, text);`);
    await this.execute(`drop function if exists "audit_chain_step"(text, text, bigint, text, text);`);
    // Pending events keep their columns; their id and canonical text go (the Node sealer of the earlier build
    // computes both again).
    await this.execute(`alter table "audit_pending" drop constraint "audit_pending_pkey";`);
    await this.execute(
      `alter table "audit_pending" drop column "id", drop column "canon_head", drop column "canon_tail";`,
    );
    await this.execute(
      `create index "audit_pending_account_id_n_index" on "audit_pending" ("account_id", "n");`,
    );
    await this.execute(`alter table "audit_pending" add primary key ("n");`);
  }
}

const STEP = `create or replace function "audit_chain_step"("state" text, "head" text, "seq" bigint, "tail" text, "start" text) returns text immutable language plpgsql as $$ begin return encode(sha256(convert_to(coalesce(state, start) || head || seq || tail, 'UTF8')), 'hex'); end $$;`;

/** The seal of this migration, which a later migration's `down` puts back. */
export const SEAL = `create or replace function "audit_seal"("p_account" uuid, "p_limit" integer) returns integer language sql as $$ insert into audit_heads (account_id, seq, hash, anchor_seq, anchor_hash)
  values (p_account, 0, repeat('0', 64), 0, repeat('0', 64))
  on conflict (account_id) do update set seq = audit_heads.seq; with head as (
  select h.seq, h.hash from audit_heads h where h.account_id = p_account
), taken as (
  delete from audit_pending
  where account_id = p_account and n <= (
    select max(oldest.n) from (
      select p.n from audit_pending p where p.account_id = p_account order by p.n limit p_limit) oldest)
  returning *
), numbered as (
  select taken.*, head.seq + row_number() over (order by taken.n) as seq, head.hash as head_hash
  from taken cross join head
), chained as (
  select numbered.*, audit_chain(canon_head, seq, canon_tail, head_hash) over (order by seq) as hash
  from numbered
), appended as (
  insert into audit_events (account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type,
    resource_id, channel, ip, user_agent, request_id, details, prev_hash, hash)
  select account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type, resource_id, channel,
    ip, user_agent, request_id, details, coalesce(lag(hash) over (order by seq), head_hash), hash
  from chained
  returning audit_events.seq, audit_events.hash
), moved as (
  update audit_heads set seq = last.seq, hash = last.hash
  from (select a.seq, a.hash from appended a order by a.seq desc limit 1) last
  where audit_heads.account_id = p_account
)
select count(*)::integer from appended; $$;`;
