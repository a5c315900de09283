import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Agent, Dispatcher } from 'undici';
import { createApp } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/common/config';
import { createLogger } from '../../src/common/logging';
import { expectMatchesContract, operationFor } from './contract';
import { HttpResult } from './http-result';
import { createTestDatabase, sharedSecretsEnv, TestDatabase } from './postgres';

export type { HttpResult };

export interface RequestOptions {
  readonly body?: unknown;
  readonly rawBody?: string | Buffer;
  readonly token?: string;
  readonly headers?: Record<string, string>;
  /** An HTTPS test app's agent, which trusts the certificate it serves. */
  readonly dispatcher?: Dispatcher;
}

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly config: AppConfig;
  readonly baseUrl: string;
  readonly dataDir: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  close(keepData?: boolean): Promise<void>;
}

export function makeTempDir(prefix = 'ds-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `TEST_STORE=postgresql` (npm run test:pg) runs every in-process daemon on its own fresh PostgreSQL database. */
const ON_POSTGRES = process.env.TEST_STORE === 'postgresql';

/** A data dir restarted with `close(true)` finds its database again, as a restarted daemon would. */
const databasesByDataDir = new Map<string, TestDatabase>();

async function storeEnv(dataDir: string, env: Record<string, string>): Promise<Record<string, string>> {
  if (!ON_POSTGRES || env.SERVICE_DATABASE_URL !== undefined) return {};
  let database = databasesByDataDir.get(dataDir);
  if (!database) {
    database = await createTestDatabase();
    databasesByDataDir.set(dataDir, database);
  }
  return { ...sharedSecretsEnv(join(dataDir, 'keys')), SERVICE_DATABASE_URL: database.url };
}

/**
 * The store a data dir's daemon runs on, for a CLI a test runs against the same state: on PostgreSQL its database
 * (created on first use, found again by startTestApp on that data dir) with the shared secrets; empty on SQLite.
 */
export function testStoreEnv(dataDir: string): Promise<Record<string, string>> {
  return storeEnv(dataDir, {});
}

/** What `close(true)` kept: the data dir and, on PostgreSQL, its database. */
export async function removeTestData(dataDir: string): Promise<void> {
  rmSync(dataDir, { recursive: true, force: true });
  await dropStore(dataDir);
}

async function dropStore(dataDir: string): Promise<void> {
  const database = databasesByDataDir.get(dataDir);
  databasesByDataDir.delete(dataDir);
  await database?.drop();
}

/** Boots the real daemon in-process on port 0 with a fresh data dir, and talks HTTP to it. */
export async function startTestApp(
  env: Record<string, string> = {},
  dataDir = makeTempDir(),
): Promise<TestApp> {
  const hadStore = databasesByDataDir.has(dataDir);
  const store = await storeEnv(dataDir, env);
  let config: AppConfig;
  let app: NestFastifyApplication;
  try {
    config = loadConfig({
      NODE_ENV: 'test',
      SERVICE_LOG_LEVEL: 'silent',
      ENGINE_POOL_SIZE: '1',
      SERVICE_RUNTIME_SUPERVISE: 'false',
      SERVICE_SIGNUP_RATE_LIMIT: '0',
      ...store,
      ...env,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
    });
    app = await createApp(config, createLogger(config.logLevel));
  } catch (error) {
    // A daemon refused at start leaves no database behind, unless an earlier start on this data dir made it.
    if (!hadStore) await dropStore(dataDir);
    throw error;
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const served = config.tls === 'off' ? undefined : readFileSync(join(config.tlsDir, 'cert.pem'), 'utf8');
  const dispatcher = served === undefined ? undefined : new Agent({ connect: { ca: served } });
  const testApp: TestApp = {
    app,
    config,
    baseUrl,
    dataDir,
    request: (method, path, options = {}) =>
      checkedRequest(baseUrl, method, path, { dispatcher, ...options }),
    async close(keepData = false) {
      await app.close();
      if (!keepData) await removeTestData(dataDir);
    },
  };
  return testApp;
}

/**
 * Every answer a test app gives to an operation of the contract is checked against the committed document before
 * the test sees it, so the document cannot drift from the code; answers to paths it does not have (a probe for a
 * 404) pass through unchecked.
 */
async function checkedRequest<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions,
): Promise<HttpResult<T>> {
  const res = await httpRequest<T>(baseUrl, method, path, options);
  const operation = operationFor(method, path);
  if (operation !== undefined) expectMatchesContract(res, operation);
  return res;
}

export async function httpRequest<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
