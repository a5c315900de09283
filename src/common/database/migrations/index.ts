import { Migration0001Foundation } from './Migration0001Foundation';
import { Migration0100Accounts } from './Migration0100Accounts';
import { Migration0101ApiKeys } from './Migration0101ApiKeys';
import { Migration0102AuditLog } from './Migration0102AuditLog';
import { Migration0200Devices } from './Migration0200Devices';
import { Migration0201ProviderKeys } from './Migration0201ProviderKeys';
import { Migration0300EgressDecisions } from './Migration0300EgressDecisions';
import { Migration0301WebhookSigningSecrets } from './Migration0301WebhookSigningSecrets';
import { Migration0302PrivacyReports } from './Migration0302PrivacyReports';
import { Migration0303EgressDecisionNode } from './Migration0303EgressDecisionNode';
import { Migration0400SimulationRuns } from './Migration0400SimulationRuns';
import { Migration0500Jobs } from './Migration0500Jobs';
import { Migration0501WorkLeases } from './Migration0501WorkLeases';
import { Migration0502DeliveryExpiry } from './Migration0502DeliveryExpiry';
import { Migration0550Repohost } from './Migration0550Repohost';
import { Migration0600Connectors } from './Migration0600Connectors';
import { Migration0700Datasets } from './Migration0700Datasets';
import { Migration0900IdempotencyKeys } from './Migration0900IdempotencyKeys';
import { Migration1000Triggers } from './Migration1000Triggers';
import { Migration1010ExecutionPolicy } from './Migration1010ExecutionPolicy';
import { Migration1020TriggerFireIdempotency } from './Migration1020TriggerFireIdempotency';
import { Migration1030IdempotentCreations } from './Migration1030IdempotentCreations';
import { Migration1060OutcomeReporters } from './Migration1060OutcomeReporters';
import { Migration1070RunInputs } from './Migration1070RunInputs';
import { Migration1050RateLimitHits } from './Migration1050RateLimitHits';
import { Migration1080RateLimits } from './Migration1080RateLimits';

/**
 * Every migration, in the order it runs. Listed explicitly so `src` (tests) and `dist` (daemon) run the same set.
 * Numbering: 0001–0099 common; each domain module takes its own hundred (accounts 0100, licensing 0200, egress 0300,
 * engine 0400, jobs/webhooks 0500, connectors 0600, datasets 0700, mcp/runtime 0800, idempotency 0900, triggers 1000).
 */
export const MIGRATIONS = [
  { name: 'Migration0001Foundation', class: Migration0001Foundation },
  { name: 'Migration0100Accounts', class: Migration0100Accounts },
  { name: 'Migration0101ApiKeys', class: Migration0101ApiKeys },
  { name: 'Migration0102AuditLog', class: Migration0102AuditLog },
  { name: 'Migration0200Devices', class: Migration0200Devices },
  { name: 'Migration0201ProviderKeys', class: Migration0201ProviderKeys },
  { name: 'Migration0300EgressDecisions', class: Migration0300EgressDecisions },
  { name: 'Migration0301WebhookSigningSecrets', class: Migration0301WebhookSigningSecrets },
  { name: 'Migration0400SimulationRuns', class: Migration0400SimulationRuns },
  { name: 'Migration0550Repohost', class: Migration0550Repohost },
  { name: 'Migration0600Connectors', class: Migration0600Connectors },
  { name: 'Migration0700Datasets', class: Migration0700Datasets },
  { name: 'Migration0500Jobs', class: Migration0500Jobs },
  { name: 'Migration0900IdempotencyKeys', class: Migration0900IdempotencyKeys },
  { name: 'Migration0302PrivacyReports', class: Migration0302PrivacyReports },
  { name: 'Migration1000Triggers', class: Migration1000Triggers },
  { name: 'Migration0501WorkLeases', class: Migration0501WorkLeases },
  { name: 'Migration0502DeliveryExpiry', class: Migration0502DeliveryExpiry },
  { name: 'Migration1010ExecutionPolicy', class: Migration1010ExecutionPolicy },
  { name: 'Migration1020TriggerFireIdempotency', class: Migration1020TriggerFireIdempotency },
  { name: 'Migration1050RateLimitHits', class: Migration1050RateLimitHits },
  { name: 'Migration1030IdempotentCreations', class: Migration1030IdempotentCreations },
  { name: 'Migration0303EgressDecisionNode', class: Migration0303EgressDecisionNode },
  { name: 'Migration1060OutcomeReporters', class: Migration1060OutcomeReporters },
  { name: 'Migration1070RunInputs', class: Migration1070RunInputs },
  { name: 'Migration1080RateLimits', class: Migration1080RateLimits },
];
