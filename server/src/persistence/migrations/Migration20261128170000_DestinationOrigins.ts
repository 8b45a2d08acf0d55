import { Migration } from '@mikro-orm/migrations';
import { destinationOrigin } from '../../domain/destinations/origin.js';

/** An http(s) URL whose origin SQL can spell as the URL standard does: a plain name or dotted quad, a plain port. */
const PLAIN_URL =
  '^([Hh][Tt][Tt][Pp][Ss]?)://(?:[^/?#\\\\]*@)?((?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*\\.*|(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]))(?::([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?(?:[/?#]|$)';

/**
 * Destinations are keyed by origin (scheme, host and port) instead of host: two ports of one host fail apart.
 * Each action gets its request's origin (`destination_origin`); SQL spells the plain URLs, and the few it cannot
 * (an internationalised name, an IPv6 literal, an unusual port or address) are spelled by the domain's own rule.
 * Each host's `destinations` row becomes the row of every origin of that host the account's actions aim at (its
 * settings, pause and circuit copied to each), and of the host's https origin on the default port, which is what a
 * bare host names in the API from now on; so no setting is lost. The held deliveries' index follows the origin.
 */
export class Migration20261128170000_DestinationOrigins extends Migration {
  override name = 'Migration20261128170000_DestinationOrigins';

  override async up(): Promise<void> {
    await this.execute(`alter table "actions" add "destination_origin" varchar(300) null;`);
    await this.execute(
      `update "actions" a set "destination_origin" = o.scheme || '://' || o.host
         || case when o.port is null or (o.scheme = 'https' and o.port = '443') or (o.scheme = 'http' and o.port = '80')
                 then '' else ':' || o.port end
         from (select id, lower(m[1]) as scheme, lower(rtrim(m[2], '.')) as host, m[3] as port
                 from (select id, regexp_match("request"->>'url', ?) as m
                         from "actions" where "request" is not null) x
                where m is not null) o
        where a.id = o.id and o.host <> ''`,
      [PLAIN_URL],
    );
    const rest = await this.execute(
      `select id, "request"->>'url' as url from "actions" where "request" is not null and "destination_origin" is null`,
    );
    for (const row of rest as unknown as { id: string; url: string | null }[]) {
      const origin = row.url ? destinationOrigin(row.url) : null;
      if (origin)
        await this.execute(`update "actions" set "destination_origin" = ? where id = ?`, [origin, row.id]);
    }

    await this.execute(`alter table "destinations" rename column "host" to "origin";`);
    await this.execute(`alter table "destinations" alter column "origin" type varchar(300) using "origin";`);
    const copied = [
      'flow',
      'circuit',
      'paused_at',
      'paused_until',
      'pause_note',
      'rate_window_start',
      'rate_window_count',
      'circuit_state',
      'circuit_opened_at',
      'circuit_next_probe_at',
      'circuit_reopens',
      'circuit_probe_until',
      'circuit_window_start',
      'circuit_window_failures',
      'circuit_check_at',
      'created_at',
      'updated_at',
    ]
      .map((c) => `"${c}"`)
      .join(', ');
    await this.execute(
      `insert into "destinations" ("account_id", "origin", ${copied})
       select d."account_id", o."destination_origin", ${copied.replace(/"([a-z_]+)"/g, 'd."$1"')}
         from "destinations" d
         join (select distinct "account_id", "destination_host", "destination_origin" from "actions"
                where "destination_origin" is not null) o
           on o."account_id" = d."account_id" and o."destination_host" = d."origin"
        where o."destination_origin" <> 'https://' || d."origin"
       on conflict do nothing;`,
    );
    await this.execute(
      `update "destinations" set "origin" = 'https://' || "origin" where "origin" not like '%://%';`,
    );

    await this.execute(`drop index if exists "actions_held_index";`);
    await this.execute(
      `create index "actions_held_index" on "actions" ("account_id", "destination_origin", "next_attempt_at") where "held_since" is not null and "status" in ('scheduled', 'resolved');`,
    );
  }

  override down(): void {
    // Origins are not folded back into hosts: two origins of one host may hold different settings.
  }
}
