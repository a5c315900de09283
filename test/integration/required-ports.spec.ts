import { rmSync } from 'node:fs';
import { Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '../../src/common/config';
import { CoreModule } from '../../src/common/core.module';
import { CryptoModule } from '../../src/common/crypto';
import { prepareDataDir } from '../../src/common/data-dir';
import { DatabaseModule } from '../../src/common/database';
import { createLogger } from '../../src/common/logging';
import { ApiKeyOrSessionResolver } from '../../src/modules/access/credential.resolver';
import { KeyFailureThrottle } from '../../src/modules/access/key-failure-throttle';
import { AccountsModule } from '../../src/modules/accounts/accounts.module';
import { ApiKeySchema } from '../../src/modules/api-keys/api-key.entity';
import { ApiKeyRepository } from '../../src/modules/api-keys/api-key.repository';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service';
import { AuditModule } from '../../src/modules/audit/audit.module';
import { EngineModule } from '../../src/modules/engine/engine.module';
import { InfrastructureService } from '../../src/modules/health/infrastructure.service';
import { PrivacyService } from '../../src/modules/privacy/privacy.service';
import { RuntimeLibraryModule } from '../../src/modules/runtime-library/runtime-library.module';
import { makeTempDir } from '../support/test-app';

// A license or security rule that depends on a port must not fall back to a permissive default when the port is
// not wired: each module below leaves one required provider out, and the boot must refuse rather than run.

@Module({
  imports: [DatabaseModule.forFeature([ApiKeySchema]), AuditModule],
  providers: [ApiKeyRepository, ApiKeysService],
})
class ApiKeysWithoutKeyPolicy {}

@Module({
  imports: [AccountsModule, ApiKeysModule, AuditModule],
  providers: [KeyFailureThrottle, ApiKeyOrSessionResolver],
})
class ResolverWithoutDeviceBinder {}

@Module({ providers: [PrivacyService] })
class PrivacyWithoutLicensing {}

@Module({ imports: [EngineModule, RuntimeLibraryModule], providers: [InfrastructureService] })
class InfrastructureWithoutLicensing {}

async function boot(feature: Type): Promise<void> {
  const dataDir = makeTempDir();
  const config = loadConfig({ NODE_ENV: 'test', SERVICE_LOG_LEVEL: 'silent', SERVICE_DATA_DIR: dataDir });
  const logger = createLogger(config.logLevel);
  prepareDataDir(config, logger);
  @Module({ imports: [CoreModule.forRoot(config, logger), DatabaseModule, CryptoModule, feature] })
  class Root {}
  try {
    const context = await NestFactory.createApplicationContext(Root, { logger: false, abortOnError: false });
    await context.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('ports a license or security rule depends on are required at boot', () => {
  it('refuses to build API keys without the key policy (license caps on device_limit)', async () => {
    await expect(boot(ApiKeysWithoutKeyPolicy)).rejects.toThrow(/KEY_POLICY/);
  });

  it('refuses to resolve credentials without the device binder (capped keys)', async () => {
    await expect(boot(ResolverWithoutDeviceBinder)).rejects.toThrow(/DEVICE_BINDER/);
  });

  it('refuses the privacy report and /v1/infrastructure without the licensing service', async () => {
    await expect(boot(PrivacyWithoutLicensing)).rejects.toThrow(/LicensingService/);
    await expect(boot(InfrastructureWithoutLicensing)).rejects.toThrow(/LicensingService/);
  });
});
