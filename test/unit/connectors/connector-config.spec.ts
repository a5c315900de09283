import { AppError } from '../../../src/common/errors';
import { normalizeConfig, resolveConnectorType } from '../../../src/modules/connectors/connector-types';

function normalize(type: string, config: unknown): Record<string, unknown> {
  return normalizeConfig(resolveConnectorType(type), config).values as Record<string, unknown>;
}

function problems(type: string, config: unknown): { field: string; problem: string }[] {
  try {
    normalize(type, config);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
    return [...((error as AppError).details ?? [])];
  }
  throw new Error('expected a validation failure');
}

const fields = (type: string, config: unknown): string[] => problems(type, config).map((p) => p.field);

describe('connector config validation', () => {
  describe('SQL servers', () => {
    it('applies postgres defaults and the username alias', () => {
      expect(normalize('postgres', { database: 'db', username: 'u', password: 'p' })).toEqual({
        host: 'localhost',
        port: 5432,
        database: 'db',
        user: 'u',
        password: 'p',
        ssl_mode: 'prefer',
      });
    });

    it('requires database and user without a connection_string', () => {
      expect(fields('postgres', {})).toEqual(['config.database', 'config.user']);
      expect(fields('mysql', { host: 'db' })).toEqual(['config.database', 'config.user']);
    });

    it('lets connection_string take precedence (discrete fields optional)', () => {
      const config = normalize('postgres', { connection_string: 'postgresql+psycopg2://u:p@h:6543/db' });
      expect(config).toEqual({
        connection_string: 'postgresql+psycopg2://u:p@h:6543/db',
        ssl_mode: 'prefer',
      });
    });

    it('defaults ports: mysql 3306, mssql 1433', () => {
      expect(normalize('mysql', { database: 'd', user: 'u' }).port).toBe(3306);
      expect(normalize('mssql', { database: 'd', user: 'u' }).port).toBe(1433);
    });

    it('redshift: 5439 for cluster endpoints, 5432 otherwise unless set', () => {
      const base = { database: 'd', user: 'u' };
      expect(normalize('redshift', { ...base, host: 'c1.abc.us-east-1.redshift.amazonaws.com' }).port).toBe(
        5439,
      );
      expect(normalize('redshift', { ...base, host: 'proxy.internal' }).port).toBe(5432);
      expect(normalize('redshift', { ...base, host: 'proxy.internal', port: 5440 }).port).toBe(5440);
    });

    it('rejects wrong types and ranges naming the field', () => {
      expect(problems('postgres', { database: 'd', user: 'u', port: 'abc' })).toEqual([
        { field: 'config.port', problem: 'must be an integer' },
      ]);
      expect(fields('postgres', { database: 'd', user: 'u', port: 70000 })).toEqual(['config.port']);
      expect(fields('postgres', { database: 'd', user: 5 })).toEqual(['config.user']);
      expect(fields('postgres', { database: 'd', user: 'u', ssl_mode: 'sometimes' })).toEqual([
        'config.ssl_mode',
      ]);
    });

    it('refuses unknown fields', () => {
      expect(problems('postgres', { database: 'd', user: 'u', hots: 'x' })).toEqual([
        {
          field: 'config.hots',
          problem:
            'is not a known field; allowed fields are port, ssl_mode, connection_string, host, database, user, password, schema',
        },
      ]);
    });
  });

  describe('sqlite', () => {
    it('needs path or connection_string', () => {
      expect(fields('sqlite', {})).toEqual(['config.path']);
      expect(normalize('sqlite', { path: 'a.db' })).toEqual({ path: 'a.db' });
    });
  });

  describe('clickhouse', () => {
    it('defaults port 8123, database and user "default"', () => {
      expect(normalize('clickhouse', { host: 'ch' })).toEqual({
        host: 'ch',
        port: 8123,
        database: 'default',
        user: 'default',
        secure: false,
      });
    });

    it('infers secure and port 8443 from an https url', () => {
      expect(normalize('clickhouse', { url: 'https://ch.example' })).toMatchObject({
        host: 'ch.example',
        port: 8443,
        secure: true,
      });
    });

    it('port 8443 when secure is set', () => {
      expect(normalize('clickhouse', { host: 'ch', secure: true }).port).toBe(8443);
    });

    it('takes host and port from a DSN', () => {
      expect(
        normalize('clickhouse', { connection_string: 'clickhouses://u:p@ch.example:9440/db' }),
      ).toMatchObject({
        host: 'ch.example',
        port: 9440,
        secure: true,
      });
    });

    it('needs a host, url or connection_string', () => {
      expect(fields('clickhouse', {})).toEqual(['config.host']);
    });
  });

  describe('snowflake and bigquery', () => {
    it('snowflake requires account, user and password unless connection_string', () => {
      expect(fields('snowflake', {})).toEqual(['config.account', 'config.user', 'config.password']);
      expect(normalize('snowflake', { connection_string: 'snowflake://u:p@acct/db' })).toEqual({
        connection_string: 'snowflake://u:p@acct/db',
      });
    });

    it('bigquery accepts the service-account JSON as an object or a string', () => {
      const sa = { client_email: 'a@b.iam.gserviceaccount.com', private_key: 'k', project_id: 'p' };
      expect(normalize('bigquery', { service_account_json: sa }).service_account_json).toBe(
        JSON.stringify(sa),
      );
      expect(normalize('bigquery', { service_account_json: JSON.stringify(sa) }).service_account_json).toBe(
        JSON.stringify(sa),
      );
      expect(fields('bigquery', { service_account_json: '{"x":1}' })).toEqual([
        'config.service_account_json',
      ]);
    });
  });

  describe('object stores', () => {
    it('s3: bucket and key required, region default, credential aliases', () => {
      expect(fields('s3', {})).toEqual(['config.bucket', 'config.key']);
      expect(
        normalize('s3', {
          bucket: 'b',
          key: 'k.csv',
          access_key_id: 'A',
          secret_access_key: 'S',
          session_token: 'T',
        }),
      ).toEqual({
        bucket: 'b',
        key: 'k.csv',
        region: 'us-east-1',
        aws_access_key_id: 'A',
        aws_secret_access_key: 'S',
        aws_session_token: 'T',
        anonymous: false,
        ambient_credentials: false,
      });
    });

    it('gcs: service_account_json is an alias of credentials', () => {
      expect(
        normalize('gcs', { bucket: 'b', blob: 'x.json', service_account_json: 'creds.json' }),
      ).toMatchObject({ credentials: 'creds.json' });
      expect(fields('gcs', { bucket: 'b' })).toEqual(['config.blob']);
    });

    it('azure: one of blob_url, account_url + container + blob, connection_string + container + blob', () => {
      expect(normalize('azure', { blob_url: 'https://a.blob.core.windows.net/c/x.csv' })).toMatchObject({
        anonymous: true,
      });
      expect(fields('azure', {})).toEqual(['config.blob_url']);
      expect(fields('azure', { account_url: 'https://a.blob.core.windows.net', container: 'c' })).toEqual([
        'config.blob',
      ]);
      expect(
        normalize('azure', {
          connection_string: 'UseDevelopmentStorage=true',
          container: 'c',
          blob: 'b.csv',
        }),
      ).toMatchObject({ container: 'c' });
    });

    it('file_type xlsx means excel', () => {
      expect(normalize('s3', { bucket: 'b', key: 'k', file_type: 'xlsx', anonymous: true }).file_type).toBe(
        'excel',
      );
    });
  });

  describe('rest', () => {
    it('may be created without base_url; url is an alias of base_url', () => {
      expect(normalize('rest', {})).toMatchObject({
        auth_type: 'none',
        method: 'GET',
        timeout: 30,
        headers: {},
        params: {},
      });
      expect(normalize('rest', { url: 'http://h/items' })).toMatchObject({
        base_url: 'http://h/items',
        url: 'http://h/items',
      });
    });

    it('accepts only GET and POST', () => {
      expect(problems('rest', { method: 'DELETE' })).toEqual([
        { field: 'config.method', problem: 'must be one of GET, POST' },
      ]);
      expect(normalize('rest', { method: 'post' }).method).toBe('POST');
    });

    it('bearer takes api_key or token', () => {
      expect(normalize('rest', { auth_type: 'bearer', token: 't' }).api_key).toBe('t');
      expect(fields('rest', { auth_type: 'bearer' })).toEqual(['config.api_key']);
    });

    it('requires pagination mode and a positive max_pages', () => {
      expect(fields('rest', { pagination: {} })).toEqual([
        'config.pagination.mode',
        'config.pagination.max_pages',
      ]);
      expect(fields('rest', { pagination: { mode: 'page_number', max_pages: 0 } })).toEqual([
        'config.pagination.max_pages',
      ]);
      expect(fields('rest', { pagination: { mode: 'offset', max_pages: 2 } })).toEqual([
        'config.pagination.mode',
      ]);
      expect(normalize('rest', { pagination: { mode: 'page_number', max_pages: 3 } }).pagination).toEqual({
        mode: 'page_number',
        max_pages: 3,
        page_param: 'page',
        start_page: 1,
      });
      expect(fields('rest', { pagination: { mode: 'cursor_path', max_pages: 3 } })).toEqual([
        'config.pagination.next_path',
      ]);
    });

    it('the canonical auth envelope adds the headers the spec names', () => {
      expect(normalize('rest', { auth: { mode: 'token', token: 'abc' } })).toMatchObject({
        auth_type: 'bearer',
        headers: { Authorization: 'Bearer abc' },
      });
      expect(normalize('rest', { auth: { mode: 'oauth', access_token: 'xyz' } }).headers).toEqual({
        Authorization: 'Bearer xyz',
      });
      expect(normalize('rest', { auth: { mode: 'basic', username: 'u', password: 'p' } }).headers).toEqual({
        Authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
      });
      expect(
        normalize('rest', { auth: { mode: 'api_key', api_key: 'k', api_key_header: 'X-Key' } }).headers,
      ).toEqual({ 'X-Key': 'k' });
      expect(normalize('rest', { auth: { mode: 'api_key', api_key: 'k' } }).headers).toEqual({
        'X-API-Key': 'k',
      });
      expect(fields('rest', { auth: { mode: 'bearer' } })).toEqual(['config.auth.token', 'config.api_key']);
    });

    it('headers must be strings', () => {
      expect(fields('rest', { headers: { 'X-N': 1 } })).toEqual(['config.headers.X-N']);
    });
  });

  describe('file', () => {
    it('defaults file_type csv, or from the alias, or from the file extension', () => {
      expect(normalize('file', { content: 'a\n1' }).file_type).toBe('csv');
      expect(normalize('json', { content: '[]' }).file_type).toBe('json');
      expect(normalize('file', { file_path: 'x.parquet' }).file_type).toBe('parquet');
      expect(normalize('file', { file_path: 'x.xlsx', sheet: '2' }).sheet).toBe(2);
    });

    it('rejects a bad delimiter and unknown encodings', () => {
      expect(fields('file', { content: 'a', delimiter: ';;' })).toEqual(['config.delimiter']);
      expect(fields('file', { content: 'a', encoding: 'klingon' })).toEqual(['config.encoding']);
    });
  });

  it('refuses a config that is not an object', () => {
    expect(fields('file', [1])).toEqual(['config']);
  });
  describe('repository hosts', () => {
    it.each([
      ['github_repo', { owner: 'acme', repo: '..' }, 'config.repo'],
      ['github_repo', { owner: '.', repo: 'data' }, 'config.owner'],
      ['bitbucket_repo', { workspace: 'acme', repo: '..' }, 'config.repo'],
    ])('refuses %s names that would move the API path (%j)', (type, config, field) => {
      expect(fields(type, config)).toEqual([field]);
    });

    it('keeps names with dots that are not path steps', () => {
      expect(normalize('github_repo', { owner: 'acme', repo: 'data.v2' })).toMatchObject({ repo: 'data.v2' });
    });
  });
});
