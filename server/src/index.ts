export { AccountService } from './app/accounts.js';
export type { AccountView, ApiKeyView, Principal } from './app/accounts.js';
export { RetentionService } from './app/retention.js';
export type { PurgeCounts } from './app/retention.js';
export { ConfigError, loadConfig } from './config.js';
export type { Config, Role } from './config.js';
export { parseScopes, SCOPES } from './domain/auth/api-key.js';
export type { Scope } from './domain/auth/api-key.js';
export { createLogger } from './logger.js';
export { openDatabase, startService } from './main.js';
export type { OpenDatabase, RunningService } from './main.js';
/** The benchmarks' throwaway PostgreSQL (bench/lib.mjs), as `sched serve` starts it without a DATABASE_URL. */
export { ensureEmbeddedPostgres } from './persistence/embedded-postgres.js';
/** The benchmarks' seed: the month partitions of the attempt history it writes (bench/seed.mjs). */
export { attemptPartitionStatement } from './persistence/partitions.js';
export { findOutboxMessage, listOutboxMessages } from './persistence/approvals/outbox-messages.js';
export type { OutboxFilter, OutboxMessage } from './persistence/approvals/outbox-messages.js';
export { PLANS } from './persistence/entities/account.js';
export type { Plan } from './persistence/entities/account.js';
export { SERVER_VERSION } from './version.js';
