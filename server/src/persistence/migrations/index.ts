import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121131109_Initial } from './Migration20261121131109_Initial.js';
import { Migration20261121132145_Actions } from './Migration20261121132145_Actions.js';
import { Migration20261121133841_RecurrenceIndex } from './Migration20261121133841_RecurrenceIndex.js';
import { Migration20261121134443_Approvals } from './Migration20261121134443_Approvals.js';
import { Migration20261121153000_JobDueAt } from './Migration20261121153000_JobDueAt.js';
import { Migration20261122233135_Chains } from './Migration20261122233135_Chains.js';
import { Migration20261122233413_Domains } from './Migration20261122233413_Domains.js';
import { Migration20261122234546_ChainCallbacks } from './Migration20261122234546_ChainCallbacks.js';
import { Migration20261122234945_Templates } from './Migration20261122234945_Templates.js';
import { Migration20261123000813_ChainStepSettled } from './Migration20261123000813_ChainStepSettled.js';
import { Migration20261125034000_Pause } from './Migration20261125034000_Pause.js';
import { Migration20261125040000_ApiKeyExpiry } from './Migration20261125040000_ApiKeyExpiry.js';
import { Migration20261125041500_TemplateGuards } from './Migration20261125041500_TemplateGuards.js';
import { Migration20261125042000_DomainRemoved } from './Migration20261125042000_DomainRemoved.js';
import { Migration20261125033000_ConsoleSessions } from './Migration20261125033000_ConsoleSessions.js';
import { Migration20261125045000_InboxBulkOperations } from './Migration20261125045000_InboxBulkOperations.js';
import { Migration20261125050000_Traceparent } from './Migration20261125050000_Traceparent.js';
import { Migration20261125051000_AuditEvents } from './Migration20261125051000_AuditEvents.js';
import { Migration20261125051000_Destinations } from './Migration20261125051000_Destinations.js';
import { Migration20261125060000_DestinationCircuit } from './Migration20261125060000_DestinationCircuit.js';
import { Migration20261126170425_AlertRules } from './Migration20261126170425_AlertRules.js';
import { Migration20261126180000_SendCounts } from './Migration20261126180000_SendCounts.js';
import { Migration20261126181000_AttemptPages } from './Migration20261126181000_AttemptPages.js';
import { Migration20261126190100_RecipientReassignedFrom } from './Migration20261126190100_RecipientReassignedFrom.js';
import { Migration20261126190200_AuditPrefixOnly } from './Migration20261126190200_AuditPrefixOnly.js';
import { Migration20261126190734_AuditPending } from './Migration20261126190734_AuditPending.js';
import { Migration20261126195000_ClaimFromActions } from './Migration20261126195000_ClaimFromActions.js';
import { Migration20261126200626_AuditSealInDatabase } from './Migration20261126200626_AuditSealInDatabase.js';
import { Migration20261127021000_DueIndexUnheld } from './Migration20261127021000_DueIndexUnheld.js';
import { Migration20261128134000_LegacyTemplateOrigins } from './Migration20261128134000_LegacyTemplateOrigins.js';
import { Migration20261128160000_ActionChanged } from './Migration20261128160000_ActionChanged.js';
import { Migration20261128170000_DestinationOrigins } from './Migration20261128170000_DestinationOrigins.js';
import { Migration20261128171500_HotDelivery } from './Migration20261128171500_HotDelivery.js';
import { Migration20261128200000_AttemptPartitions } from './Migration20261128200000_AttemptPartitions.js';
import { Migration20261128200100_OutboxActionIndex } from './Migration20261128200100_OutboxActionIndex.js';
import { Migration20261128210000_InboxCount } from './Migration20261128210000_InboxCount.js';
import { Migration20261128230000_FailedInboxCount } from './Migration20261128230000_FailedInboxCount.js';
import { Migration20261129020000_AuditPendingOnce } from './Migration20261129020000_AuditPendingOnce.js';
import { Migration20261129030000_ColdColumnsLast } from './Migration20261129030000_ColdColumnsLast.js';
import { Migration20261129140000_AwaitingIndex } from './Migration20261129140000_AwaitingIndex.js';
import { Migration20261129160000_OriginStatusStats } from './Migration20261129160000_OriginStatusStats.js';
import { Migration20261129170000_InboxCountsIndexOnly } from './Migration20261129170000_InboxCountsIndexOnly.js';
import { Migration20261129190000_AttemptsOfDeletedActions } from './Migration20261129190000_AttemptsOfDeletedActions.js';
import { Migration20261130050000_ActionOrigins } from './Migration20261130050000_ActionOrigins.js';
import { Migration20261130060000_AttemptsOfDeletedActionsByArray } from './Migration20261130060000_AttemptsOfDeletedActionsByArray.js';
import { Migration20261128161000_AnswerValuesGrants } from './Migration20261128161000_AnswerValuesGrants.js';
import { Migration20261128170000_AccountWrites } from './Migration20261128170000_AccountWrites.js';
import { Migration20261128171000_AuditDataEvents } from './Migration20261128171000_AuditDataEvents.js';
import { Migration20261127031500_AccountSigningSecret } from './Migration20261127031500_AccountSigningSecret.js';
import { Migration20261128140000_SigningSecretOverlap } from './Migration20261128140000_SigningSecretOverlap.js';
import { Migration20261128150000_AnswerChannels } from './Migration20261128150000_AnswerChannels.js';
import { Migration20261128160000_DeliveryWindows } from './Migration20261128160000_DeliveryWindows.js';

/**
 * Committed migrations, in order. New ones are appended; applied ones never change. `name` is what a database
 * records as applied: the first eight were recorded without the underscore the migrator writes
 * (`Migration<timestamp>_<Name>`, new-migration.ts), so their names keep that spelling while their files and classes
 * follow the one scheme.
 */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261121131109Initial', class: Migration20261121131109_Initial },
  { name: 'Migration20261121132145Actions', class: Migration20261121132145_Actions },
  { name: 'Migration20261121133841RecurrenceIndex', class: Migration20261121133841_RecurrenceIndex },
  { name: 'Migration20261121134443Approvals', class: Migration20261121134443_Approvals },
  { name: 'Migration20261121153000JobDueAt', class: Migration20261121153000_JobDueAt },
  { name: 'Migration20261122233135Chains', class: Migration20261122233135_Chains },
  { name: 'Migration20261122233413Domains', class: Migration20261122233413_Domains },
  { name: 'Migration20261122234546ChainCallbacks', class: Migration20261122234546_ChainCallbacks },
  { name: 'Migration20261122234945_Templates', class: Migration20261122234945_Templates },
  { name: 'Migration20261123000813_ChainStepSettled', class: Migration20261123000813_ChainStepSettled },
  { name: 'Migration20261125034000_Pause', class: Migration20261125034000_Pause },
  { name: 'Migration20261125040000_ApiKeyExpiry', class: Migration20261125040000_ApiKeyExpiry },
  { name: 'Migration20261125041500_TemplateGuards', class: Migration20261125041500_TemplateGuards },
  { name: 'Migration20261125042000_DomainRemoved', class: Migration20261125042000_DomainRemoved },
  { name: 'Migration20261125033000_ConsoleSessions', class: Migration20261125033000_ConsoleSessions },
  { name: 'Migration20261125045000_InboxBulkOperations', class: Migration20261125045000_InboxBulkOperations },
  { name: 'Migration20261125050000_Traceparent', class: Migration20261125050000_Traceparent },
  { name: 'Migration20261125051000_AuditEvents', class: Migration20261125051000_AuditEvents },
  { name: 'Migration20261125051000_Destinations', class: Migration20261125051000_Destinations },
  { name: 'Migration20261125060000_DestinationCircuit', class: Migration20261125060000_DestinationCircuit },
  { name: 'Migration20261126170425_AlertRules', class: Migration20261126170425_AlertRules },
  { name: 'Migration20261126180000_SendCounts', class: Migration20261126180000_SendCounts },
  { name: 'Migration20261126181000_AttemptPages', class: Migration20261126181000_AttemptPages },
  {
    name: 'Migration20261126190100_RecipientReassignedFrom',
    class: Migration20261126190100_RecipientReassignedFrom,
  },
  { name: 'Migration20261126190200_AuditPrefixOnly', class: Migration20261126190200_AuditPrefixOnly },
  { name: 'Migration20261126190734_AuditPending', class: Migration20261126190734_AuditPending },
  { name: 'Migration20261126195000_ClaimFromActions', class: Migration20261126195000_ClaimFromActions },
  { name: 'Migration20261126200626_AuditSealInDatabase', class: Migration20261126200626_AuditSealInDatabase },
  { name: 'Migration20261127021000_DueIndexUnheld', class: Migration20261127021000_DueIndexUnheld },
  {
    name: 'Migration20261127031500_AccountSigningSecret',
    class: Migration20261127031500_AccountSigningSecret,
  },
  {
    name: 'Migration20261128134000_LegacyTemplateOrigins',
    class: Migration20261128134000_LegacyTemplateOrigins,
  },
  {
    name: 'Migration20261128140000_SigningSecretOverlap',
    class: Migration20261128140000_SigningSecretOverlap,
  },
  { name: 'Migration20261128150000_AnswerChannels', class: Migration20261128150000_AnswerChannels },
  { name: 'Migration20261128160000_DeliveryWindows', class: Migration20261128160000_DeliveryWindows },
  { name: 'Migration20261128160000_ActionChanged', class: Migration20261128160000_ActionChanged },
  { name: 'Migration20261128161000_AnswerValuesGrants', class: Migration20261128161000_AnswerValuesGrants },
  { name: 'Migration20261128170000_AccountWrites', class: Migration20261128170000_AccountWrites },
  { name: 'Migration20261128170000_DestinationOrigins', class: Migration20261128170000_DestinationOrigins },
  { name: 'Migration20261128171000_AuditDataEvents', class: Migration20261128171000_AuditDataEvents },
  { name: 'Migration20261128171500_HotDelivery', class: Migration20261128171500_HotDelivery },
  { name: 'Migration20261128200000_AttemptPartitions', class: Migration20261128200000_AttemptPartitions },
  { name: 'Migration20261128200100_OutboxActionIndex', class: Migration20261128200100_OutboxActionIndex },
  { name: 'Migration20261128210000_InboxCount', class: Migration20261128210000_InboxCount },
  { name: 'Migration20261128230000_FailedInboxCount', class: Migration20261128230000_FailedInboxCount },
  { name: 'Migration20261129020000_AuditPendingOnce', class: Migration20261129020000_AuditPendingOnce },
  { name: 'Migration20261129030000_ColdColumnsLast', class: Migration20261129030000_ColdColumnsLast },
  { name: 'Migration20261129140000_AwaitingIndex', class: Migration20261129140000_AwaitingIndex },
  { name: 'Migration20261129160000_OriginStatusStats', class: Migration20261129160000_OriginStatusStats },
  {
    name: 'Migration20261129170000_InboxCountsIndexOnly',
    class: Migration20261129170000_InboxCountsIndexOnly,
  },
  {
    name: 'Migration20261129190000_AttemptsOfDeletedActions',
    class: Migration20261129190000_AttemptsOfDeletedActions,
  },
  {
    name: 'Migration20261130050000_ActionOrigins',
    class: Migration20261130050000_ActionOrigins,
  },
  {
    name: 'Migration20261130060000_AttemptsOfDeletedActionsByArray',
    class: Migration20261130060000_AttemptsOfDeletedActionsByArray,
  },
];
