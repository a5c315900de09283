import { AppError } from '../../../src/common/errors';
import { ACCEPTED_TYPE_NAMES, resolveConnectorType } from '../../../src/modules/connectors/connector-types';

describe('connector type registry', () => {
  it.each([
    ['postgres', 'postgres', undefined],
    ['postgresql', 'postgres', undefined],
    ['PostgreSQL', 'postgres', undefined],
    ['rest-api', 'rest', undefined],
    ['rest_api', 'rest', undefined],
    ['file-upload', 'file', undefined],
    ['elastic', 'elasticsearch', undefined],
    ['csv', 'file', 'csv'],
    ['tsv', 'file', 'tsv'],
    ['json', 'file', 'json'],
    ['excel', 'file', 'excel'],
    ['xlsx', 'file', 'excel'],
    ['xls', 'file', 'excel'],
    ['parquet', 'file', 'parquet'],
    ['github-repo', 'github_repo', undefined],
    ['repo_archive', 'repo_archive', undefined],
  ])('%s → %s (file_type %s)', (requested, type, fileType) => {
    const resolved = resolveConnectorType(requested);
    expect(resolved.type).toBe(type);
    expect(resolved.fileType).toBe(fileType);
  });

  it('stores azure with provider azure_blob', () => {
    expect(resolveConnectorType('azure')).toEqual({
      type: 'azure',
      fileType: undefined,
      provider: 'azure_blob',
    });
  });

  it('rejects an unknown type with invalid_type listing the valid set', () => {
    let caught: unknown;
    try {
      resolveConnectorType('oracle');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    const error = caught as AppError;
    expect(error.code).toBe('invalid_type');
    expect(error.status).toBe(422);
    for (const name of ['postgres', 'file', 'file_upload', 'rest', 'azure', 'neo4j'])
      expect(error.message).toContain(name);
  });

  it('rejects a missing type with invalid_type', () => {
    expect(() => resolveConnectorType(undefined)).toThrow(expect.objectContaining({ code: 'invalid_type' }));
  });

  it('lists every canonical type and the alias file_upload', () => {
    for (const name of [
      'postgres',
      'mysql',
      'mssql',
      'sqlite',
      'clickhouse',
      'redshift',
      'snowflake',
      'bigquery',
      's3',
      'gcs',
      'azure',
      'rest',
      'file',
      'file_upload',
    ]) {
      expect(ACCEPTED_TYPE_NAMES).toContain(name);
    }
  });
});
