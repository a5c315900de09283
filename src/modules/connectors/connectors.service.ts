import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { SecretVault } from '../../common/crypto/secret-vault';
import {
  decodeCursor,
  DEFAULT_PAGE_LIMIT,
  encodeCursor,
  MAX_PAGE_LIMIT,
  pageOf,
  rowsToFetch,
} from '../../common/http/cursor-page';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { EGRESS_GUARD, EgressGuard } from '../egress/egress.types';
import { ConnectorEntity, ConnectorStatus, connectorConfigAad } from './connector.entity';
import { ConnectorRepository, ListPosition } from './connector.repository';
import { BrowseResult, ConnectorDriver, DriverContext, RowSelection } from './connector-driver';
import { ConnectorError, ConnectorErrorType } from './connector-error';
import { assertSecretsFollowDestination } from './connector-destination';
import { ImportAreas } from './import-areas';
import { restoreMasked } from './connector-secrets';
import {
  ConnectorType,
  descriptorOf,
  isConnectorType,
  NormalizedConfig,
  normalizeConfig,
  resolveConnectorType,
} from './connector-types';
import { parseLimitsOf } from './formats/parse-limits';
import type { RowBatch } from './formats/records';
import type { PlainCsvFile } from './formats/plain-csv';
import { SCRATCH_DIR_NAME } from './leftover-files';
import { classifyNetworkError, errorMessage, withDeadline } from './network-errors';

/** A backstop over each driver's own connect and request timeouts. */
export const TEST_DEADLINE_MS = 120_000;
const DEFAULT_BATCH_SIZE = 1000;

export interface Connector {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly connectorType: ConnectorType;
  readonly provider: string | null;
  readonly config: NormalizedConfig;
  readonly configVersion: number;
  readonly status: ConnectorStatus;
  readonly errorMessage: string | null;
  readonly errorType: string | null;
  readonly lastTestedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface TestResult {
  readonly success: boolean;
  readonly status: 'live' | 'ok' | 'error';
  readonly latencyMs: number;
  readonly message: string;
  readonly errorType?: ConnectorErrorType;
  readonly recoverable?: boolean;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface ConnectorPage {
  readonly connectors: readonly Connector[];
  readonly nextCursor: string | null;
}

export interface ReadOptions {
  readonly signal?: AbortSignal;
  readonly batchSize?: number;
  readonly onWarning?: (message: string) => void;
}

function driverOf(config: NormalizedConfig): ConnectorDriver<unknown> {
  return descriptorOf(config.type).driver;
}

export function toConnectorError(error: unknown, destination = 'The source'): ConnectorError {
  return (
    classifyNetworkError(error, destination) ??
    new ConnectorError('driver_error', `The connector failed: ${errorMessage(error)}`)
  );
}

function positionOf(cursor: string): ListPosition {
  const [createdAt, id] = decodeCursor(cursor, 2);
  return { createdAt, id };
}

@Injectable()
export class ConnectorsService {
  constructor(
    private readonly repository: ConnectorRepository,
    private readonly vault: SecretVault,
    @Inject(EGRESS_GUARD) private readonly egress: EgressGuard,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly importAreas: ImportAreas,
  ) {}

  normalize(connectorType: unknown, config: unknown): NormalizedConfig {
    return normalizeConfig(resolveConnectorType(connectorType), config);
  }

  /** `idempotencyId`: the Idempotency-Key operation, recorded on the connector so that `createdBy` finds it. */
  async create(
    orgId: string,
    name: string,
    connectorType: unknown,
    rawConfig: unknown,
    idempotencyId?: string,
  ): Promise<Connector> {
    const resolved = resolveConnectorType(connectorType);
    const config = normalizeConfig(resolved, rawConfig);
    const now = new Date().toISOString();
    const id = `con_${randomUUID().replace(/-/g, '')}`;
    const entity: ConnectorEntity = {
      id,
      orgId,
      name,
      connectorType: resolved.type,
      provider: resolved.provider ?? null,
      configSealed: this.seal(id, config),
      configVersion: 1,
      status: 'untested',
      errorMessage: null,
      errorType: null,
      lastTestedAt: null,
      idempotencyId: idempotencyId ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.insert(entity);
    this.logger.info(
      { event: 'connector_created', org_id: orgId, connector_id: id, connector_type: resolved.type },
      'connector created',
    );
    return this.open(entity);
  }

  async createdBy(orgId: string, idempotencyId: string): Promise<Connector | null> {
    const entity = await this.repository.findByIdempotency(orgId, idempotencyId);
    return entity ? this.open(entity) : null;
  }

  async getForOrg(orgId: string, id: string): Promise<Connector> {
    const entity = await this.repository.findForOrg(orgId, id);
    if (!entity) throw new AppError('not_found', 'The connector was not found.');
    return this.open(entity);
  }

  async list(orgId: string, limit = DEFAULT_PAGE_LIMIT, cursor?: string): Promise<ConnectorPage> {
    const size = Math.min(Math.max(1, limit), MAX_PAGE_LIMIT);
    const rows = await this.repository.listForOrg(
      orgId,
      rowsToFetch(size),
      cursor ? positionOf(cursor) : undefined,
    );
    const page = pageOf(rows, size, (last) => encodeCursor([last.createdAt, last.id]));
    return { connectors: page.items.map((row) => this.open(row)), nextCursor: page.nextCursor };
  }

  /** A config change re-validates and resets the status; masked secrets sent back keep the stored values. */
  async update(orgId: string, id: string, changes: { name?: string; config?: unknown }): Promise<Connector> {
    const current = await this.getForOrg(orgId, id);
    let configSealed: string | undefined;
    if (changes.config !== undefined) {
      if (typeof changes.config !== 'object' || changes.config === null || Array.isArray(changes.config)) {
        throw AppError.validation([{ field: 'config', problem: 'must be an object' }]);
      }
      const incoming = changes.config as Record<string, unknown>;
      const open = descriptorOf(current.connectorType).openConfig === true;
      const raw = restoreMasked(incoming, current.config.values as Record<string, unknown>, open);
      const config = normalizeConfig(
        { type: current.connectorType, provider: current.provider ?? undefined },
        raw,
      );
      assertSecretsFollowDestination(incoming, current.config, config);
      configSealed = this.seal(id, config);
    }
    const updated = await this.repository.update(
      orgId,
      id,
      {
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(configSealed !== undefined
          ? { configSealed, status: 'untested' as const, errorMessage: null, errorType: null }
          : {}),
      },
      configSealed !== undefined,
    );
    if (!updated) throw new AppError('not_found', 'The connector was not found.');
    return this.open(updated);
  }

  async remove(orgId: string, id: string): Promise<void> {
    if (!(await this.repository.delete(orgId, id)))
      throw new AppError('not_found', 'The connector was not found.');
    this.logger.info({ event: 'connector_deleted', org_id: orgId, connector_id: id }, 'connector deleted');
  }

  async test(orgId: string, id: string): Promise<TestResult> {
    const connector = await this.getForOrg(orgId, id);
    const result = await this.runTest(orgId, connector.config);
    await this.repository.recordTest(orgId, id, connector.configVersion, {
      status: result.success ? 'live' : 'error',
      errorMessage: result.success ? null : result.message,
      errorType: result.success ? null : (result.errorType ?? null),
      testedAt: new Date().toISOString(),
    });
    this.logger.info(
      {
        event: 'connector_tested',
        org_id: orgId,
        connector_id: id,
        connector_type: connector.connectorType,
        success: result.success,
        error_type: result.errorType,
        latency_ms: result.latencyMs,
      },
      'connector tested',
    );
    return result;
  }

  async browse(orgId: string, id: string): Promise<BrowseResult & { connectorType: ConnectorType }> {
    const connector = await this.getForOrg(orgId, id);
    if (connector.status !== 'live') {
      throw new AppError(
        'not_connected',
        connector.status === 'error'
          ? 'The connector failed its last test: test it successfully before browsing.'
          : 'The connector has not been tested yet: test it successfully before browsing.',
      );
    }
    return this.runBrowse(orgId, connector.config);
  }

  async testInline(orgId: string, connectorType: unknown, config: unknown): Promise<TestResult> {
    return this.runTest(orgId, this.normalize(connectorType, config));
  }

  async browseInline(
    orgId: string,
    connectorType: unknown,
    config: unknown,
  ): Promise<BrowseResult & { connectorType: ConnectorType }> {
    return this.runBrowse(orgId, this.normalize(connectorType, config));
  }

  readRows(
    orgId: string,
    connectorId: string,
    selection: RowSelection = {},
    options: ReadOptions = {},
  ): AsyncIterable<Record<string, unknown>[]> {
    const load = (): Promise<Connector> => this.getForOrg(orgId, connectorId);
    return this.stream(orgId, load, selection, options);
  }

  readTables(
    orgId: string,
    connectorId: string,
    selection: RowSelection = {},
    options: ReadOptions = {},
  ): AsyncIterable<RowBatch> {
    const load = (): Promise<Connector> => this.getForOrg(orgId, connectorId);
    return this.stream(orgId, load, selection, options, true);
  }

  async plainCsv(
    orgId: string,
    connectorId: string,
    selection: RowSelection = {},
  ): Promise<PlainCsvFile | undefined> {
    const { config } = await this.getForOrg(orgId, connectorId);
    const driver = driverOf(config);
    if (!driver.plainCsv) return undefined;
    try {
      return await driver.plainCsv(config.values, selection, await this.context(orgId));
    } catch (error) {
      throw toConnectorError(error);
    }
  }

  readRowsInline(
    orgId: string,
    connectorType: unknown,
    config: unknown,
    selection: RowSelection = {},
    options: ReadOptions = {},
  ): AsyncIterable<Record<string, unknown>[]> {
    const normalized = this.normalize(connectorType, config);
    return this.stream(orgId, async () => ({ config: normalized }), selection, options);
  }

  private stream(
    orgId: string,
    load: () => Promise<Pick<Connector, 'config'>>,
    selection: RowSelection,
    options: ReadOptions,
  ): AsyncGenerator<Record<string, unknown>[]>;
  private stream(
    orgId: string,
    load: () => Promise<Pick<Connector, 'config'>>,
    selection: RowSelection,
    options: ReadOptions,
    tables: true,
  ): AsyncGenerator<RowBatch>;
  private async *stream(
    orgId: string,
    load: () => Promise<Pick<Connector, 'config'>>,
    selection: RowSelection,
    options: ReadOptions,
    tables = false,
  ): AsyncGenerator<RowBatch> {
    const { config } = await load();
    const ctx = await this.context(orgId, options);
    const driver = driverOf(config);
    try {
      if (tables && driver.readTables) yield* driver.readTables(config.values, selection, ctx);
      else yield* driver.readRows(config.values, selection, ctx);
    } catch (error) {
      throw toConnectorError(error);
    }
  }

  private async runTest(orgId: string, config: NormalizedConfig): Promise<TestResult> {
    const started = performance.now();
    const latency = (): number => Math.round((performance.now() - started) * 100) / 100;
    try {
      const outcome = await withDeadline(TEST_DEADLINE_MS, 'The source', async (signal) =>
        driverOf(config).test(config.values, await this.context(orgId, { signal })),
      );
      return {
        success: true,
        status: descriptorOf(config.type).testedStatus ?? 'live',
        latencyMs: latency(),
        message: outcome.message,
        ...(outcome.details ? { details: outcome.details } : {}),
      };
    } catch (error) {
      const failure = toConnectorError(error);
      return {
        success: false,
        status: 'error',
        latencyMs: latency(),
        message: failure.message,
        errorType: failure.errorType,
        recoverable: failure.recoverable,
      };
    }
  }

  private async runBrowse(
    orgId: string,
    config: NormalizedConfig,
  ): Promise<BrowseResult & { connectorType: ConnectorType }> {
    try {
      const result = await withDeadline(TEST_DEADLINE_MS, 'The source', async (signal) =>
        driverOf(config).browse(config.values, await this.context(orgId, { signal })),
      );
      return { ...result, connectorType: config.type };
    } catch (error) {
      const failure = toConnectorError(error);
      throw new AppError('connector_failed', failure.message, [
        { field: 'error_type', problem: failure.errorType },
      ]);
    }
  }

  private async context(orgId: string, options: ReadOptions = {}): Promise<DriverContext> {
    const warned = new Set<string>();
    return {
      orgId,
      egress: this.egress,
      imports: await this.importAreas.forOrg(orgId),
      scratchDir: join(this.config.runDir, SCRATCH_DIR_NAME),
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      parseLimits: parseLimitsOf(this.config),
      signal: options.signal,
      warn: (message) => {
        if (warned.has(message)) return;
        warned.add(message);
        options.onWarning?.(message);
      },
    };
  }

  private seal(id: string, config: NormalizedConfig): string {
    return this.vault.seal(JSON.stringify(config.values), connectorConfigAad(id));
  }

  private open(entity: ConnectorEntity): Connector {
    if (!isConnectorType(entity.connectorType)) throw new AppError('internal_error');
    const values = JSON.parse(this.vault.open(entity.configSealed, connectorConfigAad(entity.id))) as unknown;
    return {
      id: entity.id,
      orgId: entity.orgId,
      name: entity.name,
      connectorType: entity.connectorType,
      provider: entity.provider ?? null,
      config: { type: entity.connectorType, values } as NormalizedConfig,
      configVersion: entity.configVersion,
      status: entity.status,
      errorMessage: entity.errorMessage ?? null,
      errorType: entity.errorType ?? null,
      lastTestedAt: entity.lastTestedAt ?? null,
      createdAt: entity.createdAt,
      updatedAt: entity.updatedAt,
    };
  }
}
