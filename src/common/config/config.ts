import { cpus } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  base64Key,
  EnvParser,
  flag,
  integer,
  list,
  oneOf,
  optionalText,
  pathGrants,
  postgresUrl,
  seconds,
  smtpUrl,
  text,
} from './env-parsers';

/** Every environment variable the daemon reads, with its parser. Nothing else reads process.env. */
const SCHEMA = {
  nodeEnv: ['NODE_ENV', oneOf(['production', 'development', 'test'], 'development')],
  host: ['SERVICE_HOST', text('127.0.0.1')],
  port: ['SERVICE_PORT', integer(8080, { min: 0, max: 65535 })],
  dataDir: ['SERVICE_DATA_DIR', text('./var')],
  databaseUrl: ['SERVICE_DATABASE_URL', postgresUrl()],
  keysDir: ['SERVICE_KEYS_DIR', optionalText()],
  datasetsDir: ['SERVICE_DATASETS_DIR', optionalText()],
  logLevel: [
    'SERVICE_LOG_LEVEL',
    oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  ],
  maxBodyBytes: ['SERVICE_MAX_BODY_BYTES', integer(16 * 1024 * 1024, { min: 1024 })],
  maxJsonDepth: ['SERVICE_MAX_JSON_DEPTH', integer(64, { min: 2, max: 512 })],
  maxUploadBytes: ['SERVICE_MAX_UPLOAD_BYTES', integer(2 * 1024 * 1024 * 1024, { min: 1024 })],
  metricsToken: ['SERVICE_METRICS_TOKEN', optionalText({ secret: true })],
  shutdownTimeoutS: ['SERVICE_SHUTDOWN_TIMEOUT_S', seconds(10)],
  minFreeDiskMb: ['SERVICE_MIN_FREE_DISK_MB', integer(256, { min: 0 })],
  orgStorageQuotaMb: ['SERVICE_ORG_STORAGE_QUOTA_MB', integer(0, { min: 0, max: 1024 * 1024 * 1024 })],

  tls: ['SERVICE_TLS', oneOf(['off', 'self-signed', 'files'], 'off')],
  tlsCertFile: ['SERVICE_TLS_CERT_FILE', optionalText()],
  tlsKeyFile: ['SERVICE_TLS_KEY_FILE', optionalText()],
  tlsChainFile: ['SERVICE_TLS_CHAIN_FILE', optionalText()],
  tlsSans: ['SERVICE_TLS_SANS', list()],

  licenseFile: ['SERVICE_LICENSE_FILE', optionalText()],
  licensePublicKeyFile: ['SERVICE_LICENSE_PUBLIC_KEY_FILE', optionalText()],
  licenseKeysDir: ['SERVICE_LICENSE_KEYS_DIR', optionalText()],

  egressAllow: ['SERVICE_EGRESS_ALLOW', list()],
  egressPolicyFile: ['SERVICE_EGRESS_POLICY_FILE', optionalText()],
  privacyReportRetentionDays: [
    'SERVICE_PRIVACY_REPORT_RETENTION_DAYS',
    integer(400, { min: 1, max: 36_500 }),
  ],
  configEncryptionKey: ['SERVICE_CONFIG_ENCRYPTION_KEY', base64Key(32)],

  signupEnabled: ['SERVICE_SIGNUP_ENABLED', flag(true)],
  signupRateLimit: ['SERVICE_SIGNUP_RATE_LIMIT', integer(10, { min: 0, max: 1_000_000 })],
  publicBaseUrl: ['SERVICE_PUBLIC_BASE_URL', optionalText()],
  smtpUrl: ['SERVICE_SMTP_URL', smtpUrl()],
  mailFrom: ['SERVICE_MAIL_FROM', text('Decision Service <no-reply@localhost>')],
  jwtSecret: ['SERVICE_JWT_SECRET', optionalText({ secret: true })],
  apiKeyPepper: ['SERVICE_API_KEY_PEPPER', optionalText({ secret: true })],
  apiKeyPrefix: ['SERVICE_API_KEY_PREFIX', text('dsk')],
  apiKeyFailureWindowS: ['SERVICE_API_KEY_FAILURE_WINDOW_S', seconds(300)],
  apiKeyFailuresPerIp: ['SERVICE_API_KEY_FAILURES_PER_IP', integer(30, { min: 1, max: 1_000_000 })],
  loginFailureWindowS: ['SERVICE_LOGIN_FAILURE_WINDOW_S', seconds(900)],
  loginFailuresPerSource: ['SERVICE_LOGIN_FAILURES_PER_SOURCE', integer(5, { min: 1, max: 10_000 })],
  loginFailuresPerIp: ['SERVICE_LOGIN_FAILURES_PER_IP', integer(20, { min: 1, max: 100_000 })],
  loginAccountBackstop: ['SERVICE_LOGIN_ACCOUNT_BACKSTOP', integer(50, { min: 1, max: 1_000_000 })],
  loginBackstopDelayS: ['SERVICE_LOGIN_BACKSTOP_DELAY_S', seconds(3)],
  passwordHashConcurrency: ['SERVICE_PASSWORD_HASH_CONCURRENCY', integer(2, { min: 1, max: 64 })],
  passwordHashQueue: ['SERVICE_PASSWORD_HASH_QUEUE', integer(64, { min: 0, max: 100_000 })],

  webhookRetryBaseMs: ['SERVICE_WEBHOOK_RETRY_BASE_MS', integer(5000, { min: 1 })],
  webhookMaxAttempts: ['SERVICE_WEBHOOK_MAX_ATTEMPTS', integer(8, { min: 1, max: 50 })],
  webhookMaxPerDestination: ['SERVICE_WEBHOOK_MAX_PER_DESTINATION', integer(4, { min: 1, max: 16 })],
  orgMaxTriggers: ['SERVICE_ORG_MAX_TRIGGERS', integer(50, { min: 0, max: 1_000_000 })],
  webhookTimeoutMs: ['SERVICE_WEBHOOK_TIMEOUT_MS', integer(10_000, { min: 1, max: 600_000 })],
  webhookCallbackTimeoutMs: [
    'SERVICE_WEBHOOK_CALLBACK_TIMEOUT_MS',
    integer(15_000, { min: 1, max: 600_000 }),
  ],
  webhookSecretGraceS: ['SERVICE_WEBHOOK_SECRET_GRACE_S', integer(86_400, { min: 0, max: 30 * 86_400 })],
  repohostWebhookSecret: ['SERVICE_REPOHOST_WEBHOOK_SECRET', optionalText({ secret: true })],
  jobConcurrency: ['SERVICE_JOB_CONCURRENCY', integer(2, { min: 1, max: 256 })],
  workLeaseS: ['SERVICE_WORK_LEASE_S', integer(30, { min: 3, max: 30 })],
  previewRateLimit: ['SERVICE_PREVIEW_RATE_LIMIT', integer(30, { min: 1 })],
  parseMaxColumns: ['SERVICE_PARSE_MAX_COLUMNS', integer(1000, { min: 1, max: 100_000 })],
  parseMaxCells: ['SERVICE_PARSE_MAX_CELLS', integer(100_000_000, { min: 1 })],
  parseMaxCellBytes: ['SERVICE_PARSE_MAX_CELL_BYTES', integer(8 * 1024 * 1024, { min: 1024 })],
  parseMaxDecompressedBytes: [
    'SERVICE_PARSE_MAX_DECOMPRESSED_BYTES',
    integer(1024 * 1024 * 1024, { min: 1024 * 1024 }),
  ],
  parseMaxExpansionRatio: ['SERVICE_PARSE_MAX_EXPANSION_RATIO', integer(100, { min: 1 })],
  parseMaxArchiveEntries: ['SERVICE_PARSE_MAX_ARCHIVE_ENTRIES', integer(10_000, { min: 1, max: 10_000_000 })],
  parseMemoryMb: ['SERVICE_PARSE_MEMORY_MB', integer(1024, { min: 32, max: 65_536 })],
  parseMaxThreads: ['SERVICE_PARSE_MAX_THREADS', integer(4, { min: 1, max: 256 })],
  parseTotalMemoryMb: ['SERVICE_PARSE_TOTAL_MEMORY_MB', integer(2048, { min: 32, max: 1_048_576 })],
  importDir: ['SERVICE_IMPORT_DIR', optionalText()],
  importGrants: ['SERVICE_IMPORT_GRANTS', pathGrants()],
  queryTimeoutS: ['SERVICE_QUERY_TIMEOUT_S', seconds(30)],
  queryMemoryMb: ['SERVICE_QUERY_MEMORY_MB', integer(512, { min: 64, max: 1_048_576 })],
  queryThreads: ['SERVICE_QUERY_THREADS', integer(2, { min: 1, max: 256 })],
  sqlReportTimeoutS: ['SERVICE_SQL_REPORT_TIMEOUT_S', seconds(30)],
  sqlReportMaxRows: ['SERVICE_SQL_REPORT_MAX_ROWS', integer(10000, { min: 1, max: 1_000_000 })],
  sqlReportMaxBytes: [
    'SERVICE_SQL_REPORT_MAX_BYTES',
    integer(16 * 1024 * 1024, { min: 1024, max: 512 * 1024 * 1024 }),
  ],
  sqlReportsPerKey: ['SERVICE_SQL_REPORTS_PER_KEY', integer(2, { min: 1, max: 1000 })],
  sqlReportsPerOrg: ['SERVICE_SQL_REPORTS_PER_ORG', integer(4, { min: 1, max: 1000 })],
  sqlReportsTotal: ['SERVICE_SQL_REPORTS_TOTAL', integer(8, { min: 1, max: 1000 })],

  runtimeSocket: ['SERVICE_RUNTIME_SOCKET', optionalText()],
  runtimeBinaryPath: ['SERVICE_RUNTIME_BINARY_PATH', text('./engine_build/runtime')],
  runtimeSupervise: ['SERVICE_RUNTIME_SUPERVISE', flag(true)],
  runtimeLibraryHttpApiEnabled: ['SERVICE_RUNTIME_LIBRARY_HTTP_API_ENABLED', flag(false)],
  runtimeTimeoutS: ['SERVICE_RUNTIME_TIMEOUT_S', seconds(10)],
  runtimeHealthIntervalS: ['SERVICE_RUNTIME_HEALTH_INTERVAL_S', seconds(30)],
  mcpMaxSessions: ['SERVICE_MCP_MAX_SESSIONS', integer(100, { min: 1, max: 100_000 })],
  mcpMaxSessionsPerOrg: ['SERVICE_MCP_MAX_SESSIONS_PER_ORG', integer(20, { min: 1, max: 100_000 })],
  mcpMaxSessionsPerKey: ['SERVICE_MCP_MAX_SESSIONS_PER_KEY', integer(5, { min: 1, max: 100_000 })],
  mcpOperatorReserve: ['SERVICE_MCP_OPERATOR_RESERVE', integer(10, { min: 0, max: 100_000 })],
  mcpSessionIdleS: ['SERVICE_MCP_SESSION_IDLE_S', seconds(600)],

  engineBinaryPath: ['ENGINE_BINARY_PATH', text('./engine_build/simulate')],
  runtimeFallbackMode: ['RUNTIME_FALLBACK_MODE', oneOf(['deny', 'allow', 'auto'], 'auto')],
  engineAllowSubprocessFallback: ['ENGINE_ALLOW_SUBPROCESS_FALLBACK', flag(true)],
  enginePoolSize: ['ENGINE_POOL_SIZE', integer(Math.max(1, cpus().length - 1), { min: 0, max: 256 })],
  engineAcquireTimeoutS: ['ENGINE_ACQUIRE_TIMEOUT_S', seconds(10)],
  engineComputeTimeoutS: ['ENGINE_COMPUTE_TIMEOUT_S', seconds(60)],
  engineWorkerReadyTimeoutS: ['ENGINE_WORKER_READY_TIMEOUT_S', seconds(5)],
  engineProbeSocketTimeoutS: ['ENGINE_PROBE_SOCKET_TIMEOUT_S', seconds(30)],
  engineProbeFrameTimeoutS: ['ENGINE_PROBE_FRAME_TIMEOUT_S', seconds(10)],
  engineProbeAttempts: ['ENGINE_PROBE_ATTEMPTS', integer(3, { min: 1, max: 100 })],
  engineRecycleAfter: ['ENGINE_RECYCLE_AFTER_REQUESTS', integer(10000, { min: 0 })],
  engineHealthIntervalS: ['ENGINE_HEALTH_INTERVAL_S', seconds(30)],

  notifySocket: ['NOTIFY_SOCKET', optionalText()],
  watchdogUsec: ['WATCHDOG_USEC', integer(0, { min: 0 })],
  watchdogPid: ['WATCHDOG_PID', integer(0, { min: 0 })],
} as const satisfies Record<string, readonly [string, EnvParser<unknown>]>;

type Schema = typeof SCHEMA;
type Parsed = { readonly [K in keyof Schema]: ReturnType<Schema[K][1]['parse']> };

export interface DerivedPaths {
  readonly dataDir: string;
  readonly databaseFile: string;
  readonly keysDir: string;
  readonly mailOutboxDir: string;
  readonly datasetsDir: string;
  /** Where DuckDB spills what does not fit SERVICE_QUERY_MEMORY_MB (queries and dataset builds). */
  readonly queryTempDir: string;
  readonly importDir: string;
  readonly runDir: string;
  readonly tlsDir: string;
  readonly runtimeSocket: string;
  readonly licenseFile: string;
  readonly licenseKeysDir: string;
  readonly engineBinaryPath: string;
  readonly runtimeBinaryPath: string;
}

export type AppConfig = Omit<Parsed, keyof DerivedPaths> & DerivedPaths;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid environment variable ${variable}: ${problem}`);
  }
}

/** Application root (where package.json lives): src/common/config and dist/common/config are both three deep. */
export const APP_ROOT = resolve(__dirname, '..', '..', '..');

function parseAll(env: NodeJS.ProcessEnv): Parsed {
  const out: Record<string, unknown> = {};
  for (const [key, [name, envParser]] of Object.entries(SCHEMA)) {
    try {
      out[key] = envParser.parse(env[name]);
    } catch (error) {
      throw new ConfigError(name, error instanceof Error ? error.message : String(error));
    }
  }
  return out as Parsed;
}

/**
 * Replicas on one database must share the signing, hashing and sealing secrets and the datasets dir (the version
 * files the database catalogues): a replica generating its own would split the appliance silently.
 */
const SHARED_WHEN_REPLICATED = [
  ['jwtSecret', 'SERVICE_JWT_SECRET'],
  ['apiKeyPepper', 'SERVICE_API_KEY_PEPPER'],
  ['configEncryptionKey', 'SERVICE_CONFIG_ENCRYPTION_KEY'],
  ['keysDir', 'SERVICE_KEYS_DIR'],
  ['datasetsDir', 'SERVICE_DATASETS_DIR'],
] as const satisfies readonly (readonly [keyof Parsed, string])[];

function requireTlsFiles(parsed: Parsed): void {
  if (parsed.tls !== 'files') return;
  if (parsed.tlsCertFile === undefined) {
    throw new ConfigError('SERVICE_TLS_CERT_FILE', 'is required when SERVICE_TLS=files');
  }
  if (parsed.tlsKeyFile === undefined) {
    throw new ConfigError('SERVICE_TLS_KEY_FILE', 'is required when SERVICE_TLS=files');
  }
}

function requireSharedSecrets(parsed: Parsed): void {
  if (parsed.databaseUrl === undefined) return;
  for (const [key, name] of SHARED_WHEN_REPLICATED) {
    if (parsed[key] === undefined) {
      throw new ConfigError(
        name,
        'is required when SERVICE_DATABASE_URL is set (every replica must share it)',
      );
    }
  }
}

/** Replicas put imports on the shared datasets dir, so an upload is readable by whichever replica ingests it. */
function defaultImportDir(parsed: Parsed, dataDir: string, datasetsDir: string): string {
  return parsed.databaseUrl === undefined ? join(dataDir, 'imports') : join(datasetsDir, 'imports');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const parsed = parseAll(env);
  requireSharedSecrets(parsed);
  requireTlsFiles(parsed);
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  const dataDir = abs(parsed.dataDir);
  const runDir = join(dataDir, 'run');
  const datasetsDir = abs(parsed.datasetsDir ?? join(dataDir, 'datasets'));
  return Object.freeze({
    ...parsed,
    dataDir,
    databaseFile: join(dataDir, 'service.sqlite'),
    keysDir: abs(parsed.keysDir ?? join(dataDir, 'keys')),
    mailOutboxDir: join(dataDir, 'outbox', 'mail'),
    datasetsDir,
    queryTempDir: join(dataDir, 'tmp', 'duckdb'),
    importDir: abs(parsed.importDir ?? defaultImportDir(parsed, dataDir, datasetsDir)),
    runDir,
    tlsDir: join(dataDir, 'tls'),
    tlsCertFile: parsed.tlsCertFile === undefined ? undefined : abs(parsed.tlsCertFile),
    tlsKeyFile: parsed.tlsKeyFile === undefined ? undefined : abs(parsed.tlsKeyFile),
    tlsChainFile: parsed.tlsChainFile === undefined ? undefined : abs(parsed.tlsChainFile),
    runtimeSocket: abs(parsed.runtimeSocket ?? join(runDir, 'runtime.sock')),
    licenseFile: abs(parsed.licenseFile ?? join(dataDir, 'license.lic')),
    licenseKeysDir: abs(parsed.licenseKeysDir ?? join(APP_ROOT, 'licenses', 'keys')),
    engineBinaryPath: resolveFromRoot(parsed.engineBinaryPath, cwd),
    runtimeBinaryPath: resolveFromRoot(parsed.runtimeBinaryPath, cwd),
  });
}

/** A relative binary path is taken from the app root, so the daemon finds its binaries from any directory. */
function resolveFromRoot(p: string, cwd: string): string {
  if (isAbsolute(p)) return p;
  return p.startsWith('./') || p.startsWith('../') ? resolve(APP_ROOT, p) : resolve(cwd, p);
}

export const APP_CONFIG = Symbol('APP_CONFIG');
