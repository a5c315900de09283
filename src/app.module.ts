import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from './common/config';
import { CoreModule } from './common/core.module';
import { CryptoModule } from './common/crypto';
import { DatabaseModule } from './common/database';
import { AppLogger } from './common/logging';
import { TlsCertificates } from './common/tls';
import { AccessModule } from './modules/access/access.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { AuditModule } from './modules/audit/audit.module';
import { ContractModule } from './modules/contract/contract.module';
import { ConnectorsModule } from './modules/connectors/connectors.module';
import { DatasetsModule } from './modules/datasets/datasets.module';
import { DevicesModule } from './modules/devices/devices.module';
import { EgressModule } from './modules/egress/egress.module';
import { EngineModule } from './modules/engine/engine.module';
import { HealthModule } from './modules/health/health.module';
import { IdempotencyModule } from './modules/idempotency/idempotency.module';
import { JobsModule } from './modules/jobs/jobs.module';
import { McpModule } from './modules/mcp/mcp.module';
import { LicensingModule } from './modules/licensing/licensing.module';
import { PrivacyModule } from './modules/privacy/privacy.module';
import { ProviderKeysModule } from './modules/provider-keys/provider-keys.module';
import { QueryModule } from './modules/query/query.module';
import { RuntimeLibraryModule } from './modules/runtime-library/runtime-library.module';
import { RepohostModule } from './modules/repohost/repohost.module';
import { SimulationModule } from './modules/simulation/simulation.module';
import { SystemdModule } from './modules/systemd/systemd.module';
import { TriggersModule } from './modules/triggers/triggers.module';
import { WebhookOutboxModule } from './modules/webhook-outbox/webhook-outbox.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: AppLogger, tls?: TlsCertificates): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, logger, tls),
        CryptoModule,
        DatabaseModule,
        IdempotencyModule,
        HealthModule,
        AccessModule,
        AccountsModule,
        ApiKeysModule,
        AuditModule,
        LicensingModule,
        DevicesModule,
        ProviderKeysModule,
        EgressModule,
        WebhooksModule,
        PrivacyModule,
        RepohostModule,
        ConnectorsModule,
        DatasetsModule,
        QueryModule,
        EngineModule,
        SimulationModule,
        WebhookOutboxModule,
        JobsModule,
        TriggersModule,
        RuntimeLibraryModule,
        ContractModule,
        McpModule,
        SystemdModule,
      ],
    };
  }
}
