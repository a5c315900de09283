import { ConfigError, loadConfig } from '../../src/common/config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe('/srv/app/var');
    expect(config.databaseFile).toBe('/srv/app/var/service.sqlite');
    expect(config.importDir).toBe('/srv/app/var/imports');
    expect(config.runtimeSocket).toBe('/srv/app/var/run/runtime.sock');
    expect(config.licenseFile).toBe('/srv/app/var/license.lic');
    expect(config.maxBodyBytes).toBe(16 * 1024 * 1024);
    expect(config.signupEnabled).toBe(true);
    expect(config.previewRateLimit).toBe(30);
    expect(config.runtimeFallbackMode).toBe('auto');
    expect(config.engineAcquireTimeoutS).toBe(10);
    expect(config.engineProbeAttempts).toBe(3);
    expect(config.egressAllow).toEqual([]);
    expect(config.enginePoolSize).toBeGreaterThanOrEqual(1);
  });

  it('serves plain HTTP by default; files mode needs its certificate and key, resolved from the working dir', () => {
    const off = loadConfig({}, '/srv/app');
    expect(off.tls).toBe('off');
    expect(off.tlsDir).toBe('/srv/app/var/tls');
    expect(() => loadConfig({ SERVICE_TLS: 'on' })).toThrow(ConfigError);
    expect(() => loadConfig({ SERVICE_TLS: 'files', SERVICE_TLS_KEY_FILE: 'k.pem' })).toThrow(
      'Invalid environment variable SERVICE_TLS_CERT_FILE: is required when SERVICE_TLS=files',
    );
    expect(() => loadConfig({ SERVICE_TLS: 'files', SERVICE_TLS_CERT_FILE: 'c.pem' })).toThrow(
      'Invalid environment variable SERVICE_TLS_KEY_FILE: is required when SERVICE_TLS=files',
    );
    const files = loadConfig(
      {
        SERVICE_TLS: 'files',
        SERVICE_TLS_CERT_FILE: 'c.pem',
        SERVICE_TLS_KEY_FILE: '/etc/k.pem',
        SERVICE_TLS_SANS: 'a.lan, 10.0.0.1',
      },
      '/srv/app',
    );
    expect([files.tlsCertFile, files.tlsKeyFile, files.tlsChainFile]).toEqual([
      '/srv/app/c.pem',
      '/etc/k.pem',
      undefined,
    ]);
    expect(files.tlsSans).toEqual(['a.lan', '10.0.0.1']);
  });

  it('is frozen', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['SERVICE_PORT', 'abc'],
    ['SERVICE_PORT', '70000'],
    ['SERVICE_SIGNUP_ENABLED', 'maybe'],
    ['ENGINE_POOL_SIZE', '-1'],
    ['ENGINE_ACQUIRE_TIMEOUT_S', 'soon'],
    ['RUNTIME_FALLBACK_MODE', 'sometimes'],
    ['SERVICE_CONFIG_ENCRYPTION_KEY', 'c2hvcnQ='],
    ['SERVICE_PREVIEW_RATE_LIMIT', '2.5'],
    ['SERVICE_LOG_LEVEL', 'loud'],
    ['SERVICE_SMTP_URL', 'http://mail'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('parses lists, flags and keys', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig({
      SERVICE_EGRESS_ALLOW: ' a.example , 10.0.0.0/8:443 ,',
      SERVICE_SIGNUP_ENABLED: 'false',
      SERVICE_CONFIG_ENCRYPTION_KEY: key,
      ENGINE_COMPUTE_TIMEOUT_S: '0.5',
    });
    expect(config.egressAllow).toEqual(['a.example', '10.0.0.0/8:443']);
    expect(config.signupEnabled).toBe(false);
    expect(config.configEncryptionKey?.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.engineComputeTimeoutS).toBe(0.5);
  });

  it('parses SERVICE_IMPORT_GRANTS and refuses a grant that is not org_id:relative/path', () => {
    expect(loadConfig({}).importGrants).toEqual([]);
    expect(
      loadConfig({ SERVICE_IMPORT_GRANTS: 'org_b1:shared/rates.csv, org-c:reports/ ,' }).importGrants,
    ).toEqual([
      { orgId: 'org_b1', path: 'shared/rates.csv' },
      { orgId: 'org-c', path: 'reports' },
    ]);
    for (const bad of [
      'shared/rates.csv',
      ':a.csv',
      'org_b:',
      'org_b:/etc/passwd',
      'org_b:../x',
      'org_b:a/../../x',
      'org b:a',
    ]) {
      expect(() => loadConfig({ SERVICE_IMPORT_GRANTS: bad })).toThrow('SERVICE_IMPORT_GRANTS');
    }
  });

  describe('SERVICE_DATABASE_URL', () => {
    const shared = {
      SERVICE_DATABASE_URL: 'postgres://decision:secret@db.internal:5432/decision',
      SERVICE_JWT_SECRET: 'shared-jwt',
      SERVICE_API_KEY_PEPPER: 'shared-pepper',
      SERVICE_CONFIG_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
      SERVICE_KEYS_DIR: '/srv/shared/keys',
      SERVICE_DATASETS_DIR: '/srv/shared/datasets',
    };

    it('is unset by default: the state stays in the SQLite file', () => {
      expect(loadConfig({}).databaseUrl).toBeUndefined();
    });

    it('takes a PostgreSQL URL and the shared keys and datasets directories', () => {
      const config = loadConfig(shared, '/srv/app');
      expect(config.databaseUrl).toBe(shared.SERVICE_DATABASE_URL);
      expect(config.keysDir).toBe('/srv/shared/keys');
      expect(config.datasetsDir).toBe('/srv/shared/datasets');
      // Uploads land where every replica reads them, unless the operator names another import dir.
      expect(config.importDir).toBe('/srv/shared/datasets/imports');
      expect(loadConfig({ ...shared, SERVICE_IMPORT_DIR: '/srv/nfs/imports' }).importDir).toBe(
        '/srv/nfs/imports',
      );
    });

    it('refuses another scheme without echoing the URL', () => {
      const url = 'mysql://user:hunter2@db/x';
      expect(() => loadConfig({ ...shared, SERVICE_DATABASE_URL: url })).toThrow('SERVICE_DATABASE_URL');
      expect(() => loadConfig({ ...shared, SERVICE_DATABASE_URL: url })).not.toThrow('hunter2');
    });

    it.each([
      'SERVICE_JWT_SECRET',
      'SERVICE_API_KEY_PEPPER',
      'SERVICE_CONFIG_ENCRYPTION_KEY',
      'SERVICE_KEYS_DIR',
      'SERVICE_DATASETS_DIR',
    ] as const)('refuses to start without %s, naming it', (name) => {
      const env: Record<string, string> = { ...shared };
      delete env[name];
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(name);
    });
  });
});
