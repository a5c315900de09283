import { Inject, Injectable } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, isStorageExhausted, isStoreUnavailable } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { requireRole } from '../../common/auth/authorization';
import { Principal } from '../../common/auth/principal';
import type { PlainCsvFile } from '../connectors/connectors.types';
import { OBJECT_STORE_TYPES, RowBatch, selectionProblems, SQL_TYPES } from '../connectors/connectors.types';
import { DatasetFileError, DatasetShapeError } from './dataset-file-writer';
import { DatasetRecord } from './dataset.entity';
import { ConnectDataDto, DataConnectResponse, Visibility } from './datasets.dto';
import { DatasetsService, EmptySourceError } from './datasets.service';

/** What a data connect needs from the connectors module: the connector, and its rows as a stream of batches. */
export interface ConnectorView {
  readonly id: string;
  readonly name: string;
  readonly connectorType: string;
}

export interface RowSelection {
  readonly table?: string;
  readonly query?: string;
  readonly pattern?: string;
  readonly maxKeys?: number;
  readonly path?: string;
  readonly ref?: string;
  readonly index?: string;
  readonly label?: string;
  readonly cypher?: string;
}

export interface ConnectorRowSource {
  getForOrg(orgId: string, id: string): Promise<ConnectorView>;
  readTables(orgId: string, connectorId: string, selection: RowSelection): AsyncIterable<RowBatch>;
  plainCsv(orgId: string, connectorId: string, selection: RowSelection): Promise<PlainCsvFile | undefined>;
}

export const CONNECTOR_ROW_SOURCE = Symbol('CONNECTOR_ROW_SOURCE');

function acceptsType(connectionType: string, provider: string | undefined, connectorType: string): boolean {
  switch (connectionType) {
    case 'file':
    case 'file_upload':
      return connectorType === 'file';
    case 'api':
    case 'rest':
    case 'rest_api':
      return (
        connectorType === 'rest' && (provider === undefined || provider === 'rest' || provider === 'rest_api')
      );
    case 'database':
    case 'sql':
      return (SQL_TYPES as ReadonlySet<string>).has(connectorType);
    case 'object_store':
    case 'storage':
      return (OBJECT_STORE_TYPES as ReadonlySet<string>).has(connectorType);
    default:
      return (
        connectionType === connectorType || (connectionType === 'postgresql' && connectorType === 'postgres')
      );
  }
}

function readyResult(record: DatasetRecord): DataConnectResponse {
  return {
    status: 'ready',
    dataset_id: record.id,
    dataset_name: record.datasetName,
    version: record.version,
    schema_summary: { rows: record.rowCount, columns: record.columnCount },
    connection_id: record.connectionId ?? '',
  };
}

/** `POST /v1/data/connect`: reads a connector's rows (through the connectors module) into a new dataset version. */
@Injectable()
export class DataConnectService {
  constructor(
    private readonly datasets: DatasetsService,
    @Inject(CONNECTOR_ROW_SOURCE) private readonly connectors: ConnectorRowSource,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** `idempotencyId`: the Idempotency-Key operation, recorded on the new version so that `connectedBy` finds it. */
  async connect(
    principal: Principal,
    request: ConnectDataDto,
    idempotencyId?: string,
  ): Promise<DataConnectResponse> {
    const visibility: Visibility = request.visibility ?? 'private';
    if (visibility === 'shared') {
      requireRole(principal, 'admin', 'Sharing a dataset with every organization needs the admin role.');
    }
    requireRole(principal, 'member', 'Connecting data needs the member role or higher.');
    const connector = await this.connectors.getForOrg(principal.orgId, request.connection_id);
    const connectionType = request.connection_type.toLowerCase().replace(/-/g, '_');
    const provider = request.provider?.toLowerCase().replace(/-/g, '_');
    if (!acceptsType(connectionType, provider, connector.connectorType)) {
      throw AppError.validation([
        {
          field: 'connection_type',
          problem: `"${request.connection_type}" does not match the ${connector.connectorType} connector ${connector.id}`,
        },
      ]);
    }
    const isSql = (SQL_TYPES as ReadonlySet<string>).has(connector.connectorType);
    if (!isSql && (request.table !== undefined || request.query !== undefined)) {
      throw AppError.validation([
        { field: 'table', problem: 'table and query apply to SQL connectors only' },
      ]);
    }
    if (request.table !== undefined && request.query !== undefined) {
      throw AppError.validation([{ field: 'query', problem: 'give either table or query, not both' }]);
    }
    if (isSql && request.table === undefined && request.query === undefined) {
      throw AppError.validation([
        { field: 'table', problem: 'a SQL connector needs a table or a read-only query' },
      ]);
    }
    const problems = selectionProblems(connector.connectorType, request);
    if (problems.length > 0) throw AppError.validation(problems);
    const given = {
      table: request.table,
      query: request.query,
      pattern: request.pattern,
      max_keys: request.max_keys,
      path: request.path,
      ref: request.ref,
      index: request.index,
      label: request.label,
      cypher: request.cypher,
    };
    const recorded = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
    const selection: RowSelection = {
      table: request.table,
      query: request.query,
      pattern: request.pattern,
      maxKeys: request.max_keys,
      path: request.path,
      ref: request.ref,
      index: request.index,
      label: request.label,
      cypher: request.cypher,
    };
    try {
      const plainCsv = await this.connectors.plainCsv(principal.orgId, connector.id, selection);
      const record = await this.datasets.ingest(
        {
          orgId: principal.orgId,
          datasetName: request.dataset_name,
          visibility,
          connectionId: connector.id,
          connectionType,
          source: {
            connector_id: connector.id,
            connector_name: connector.name,
            connector_type: connector.connectorType,
            ...recorded,
          },
          createdBy: principal.keyId ?? principal.userId ?? null,
          idempotencyId,
        },
        this.connectors.readTables(principal.orgId, connector.id, selection),
        plainCsv,
      );
      return readyResult(record);
    } catch (error) {
      if (isStorageExhausted(error) || (error instanceof AppError && error.code === 'insufficient_storage')) {
        throw error;
      }
      // The daemon's database could not record the new version (its file was removed): 503, retry as is.
      if (isStoreUnavailable(error) && !(error instanceof DatasetFileError)) throw error;
      // An earlier run of the same Idempotency-Key operation catalogued its version first: that one answers.
      if (error instanceof UniqueConstraintViolationException) throw error;
      const message = this.failureMessage(error);
      this.logger.warn(
        {
          event: 'dataset_connect_failed',
          org_id: principal.orgId,
          connection_id: connector.id,
          reason: message,
        },
        'data connect failed',
      );
      return { status: 'failed', dataset_name: request.dataset_name, connection_id: connector.id, message };
    }
  }

  async connectedBy(principal: Principal, idempotencyId: string): Promise<DataConnectResponse | undefined> {
    const record = await this.datasets.ingestedBy(principal.orgId, idempotencyId);
    return record ? readyResult(record) : undefined;
  }

  private failureMessage(error: unknown): string {
    if (
      error instanceof EmptySourceError ||
      error instanceof DatasetShapeError ||
      error instanceof AppError
    ) {
      return error.message;
    }
    if (error instanceof Error) {
      if (!('code' in error) && (error instanceof TypeError || error instanceof RangeError)) {
        this.logger.error(
          { event: 'dataset_connect_error', err: error },
          'unexpected error while reading a source',
        );
        return 'Reading the source failed unexpectedly; see the daemon log.';
      }
      return error.message;
    }
    return String(error);
  }
}
