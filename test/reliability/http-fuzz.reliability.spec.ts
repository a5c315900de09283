import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ERROR_CATALOGUE } from '../../src/common/errors';
import { CONTRACT_FILE } from '../../src/modules/contract/contract-file';
import { contractProblems, operationFor } from '../support/contract';
import { DaemonProcess, spawnDaemon, waitForStart } from '../support/daemon-process';
import { collectGarbageIn, MemoryFigures, takeHeapSnapshotIn } from './support/inspector-gc';
import { checkProperty, runsOf, seedOfThisRun } from './support/property';
import { valueOf } from './support/schema-arbitrary';

/**
 * Contract-driven HTTP fuzz (docs/reliability.md): every operation of contract/openapi.json, against the built
 * daemon running as its own process, with bodies generated from the operation's request schema and mutated ones,
 * with mutated path and query parameters, under an admin key, a member key, a garbage credential and none.
 */

type Json = Record<string, any>;
const document = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as Json;
const components = document.components as Json;
const REQUEST_TIMEOUT_MS = 60_000;

interface Operation {
  readonly name: string; // `METHOD /template`, as the contract helper spells it
  readonly method: string;
  readonly template: string;
  readonly bodySchema?: Json;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly Json[];
  readonly idempotencyHeader: boolean;
}

const OPERATIONS: readonly Operation[] = Object.entries(document.paths as Record<string, Json>).flatMap(
  ([template, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]: [string, Json]) => {
        const parameters = (op.parameters ?? []) as Json[];
        return {
          name: `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          template,
          bodySchema: op.requestBody?.content?.['application/json']?.schema as Json | undefined,
          pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name as string),
          queryParams: parameters.filter((p) => p.in === 'query'),
          idempotencyHeader: parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
        };
      }),
);

type Credential = 'admin' | 'member' | 'none' | 'garbage';
const CREDENTIALS: readonly Credential[] = ['admin', 'member', 'none', 'garbage'];

interface FuzzRequest {
  readonly operation: Operation;
  readonly credential: Credential;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
  readonly mutation: string;
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Generators

/** Ids the daemon handed out while fuzzing (a created trigger, job, connector), so later paths can name them. */
const knownIds: string[] = [];

const unicodeNasties = [
  '\u0000',
  '\ud800',
  '\udfff',
  '\ud83d',
  '\ufeff',
  '\u202e',
  '\uffff',
  '💥',
  'e\u0301',
  '\u2028',
  '%00',
  "'; DROP TABLE users; --",
  '../../etc/passwd',
  '${jndi:ldap://127.0.0.1:9/a}',
];

const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...unicodeNasties),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...unicodeNasties), fc.string({ maxLength: 10 }))
    .map((parts) => parts.join('')),
);

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    false,
    null,
    '',
    '1',
    'true',
    [],
    {},
    [null],
    { '': null },
  ),
  nastyString,
  fc.jsonValue({ maxDepth: 3 }),
);

/** A JSON text with `"@@RAW@@"` replaced by a token JSON does not have (NaN, Infinity) or an edge of the grammar. */
const RAW_MARK = '@@RAW@@';
const rawToken = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  '+1',
  '1e999',
  '-1e999',
  '-0',
  '0x10',
  '01',
  '.5',
  'undefined',
  'nul',
  '"\\ud800"',
  '"\\u0000"',
  '"\\uZZZZ"',
  "'single'",
  '1_000',
  '123456789012345678901234567890',
);

function deep(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? '['.repeat(depth) + ']'.repeat(depth)
    : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

function setAt(value: unknown, key: string | undefined, replacement: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const target = key ?? Object.keys(value)[0] ?? 'x';
    return { ...(value as Json), [target]: replacement };
  }
  return replacement;
}

function keysOf(schema: Json | undefined): string[] {
  if (schema === undefined) return [];
  if (typeof schema.$ref === 'string')
    return keysOf(components.schemas?.[schema.$ref.split('/').pop() as string]);
  return Object.keys((schema.properties ?? {}) as Json);
}

interface BodyPlan {
  readonly mutation: string;
  readonly body?: string | Buffer;
  readonly contentType?: string;
}

function bodyPlanOf(operation: Operation): fc.Arbitrary<BodyPlan> {
  const valid = valueOf(operation.bodySchema ?? { type: 'object' }, components);
  const keys = keysOf(operation.bodySchema);
  const key =
    keys.length > 0 ? fc.option(fc.constantFrom(...keys), { nil: undefined }) : fc.constant(undefined);
  const json = (mutation: string) => (value: unknown) => ({
    mutation,
    body: JSON.stringify(value),
    contentType: 'application/json',
  });
  return fc.oneof(
    { weight: 6, arbitrary: valid.map(json('valid')) },
    {
      weight: 3,
      arbitrary: fc.tuple(valid, key, wrongValue).map(([v, k, w]) => json('wrong type')(setAt(v, k, w))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          key,
          fc.constantFrom('x', 'é', '💥', '\u0000'),
          fc.integer({ min: 10_000, max: 300_000 }),
        )
        .map(([v, k, unit, n]) => json('huge string')(setAt(v, k, unit.repeat(n)))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          key,
          fc.integer({ min: 20, max: 5000 }),
          fc.constantFrom('array' as const, 'object' as const),
        )
        .map(([v, k, depth, kind]) => ({
          mutation: `nesting ${depth}`,
          body: JSON.stringify(setAt(v, k, RAW_MARK)).replace(`"${RAW_MARK}"`, deep(depth, kind)),
          contentType: 'application/json',
        })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, key, rawToken).map(([v, k, token]) => ({
        mutation: `raw token ${token}`,
        body: JSON.stringify(setAt(v, k, RAW_MARK)).replace(`"${RAW_MARK}"`, token),
        contentType: 'application/json',
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, key, nastyString).map(([v, k, s]) => json('unicode')(setAt(v, k, s))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]),
        )
        .map(([v, bytes]) => {
          const text = JSON.stringify(setAt(v, undefined, RAW_MARK));
          const [before, after] = text.split(RAW_MARK);
          return {
            mutation: 'invalid UTF-8',
            body: Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]),
            contentType: 'application/json',
          };
        }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.constantFrom('__proto__', 'constructor', 'prototype')).map(([v, k]) => ({
        mutation: `key ${k}`,
        body: JSON.stringify(v)
          .replace(/^\{/, `{"${k}":{"role":"owner","polluted":true},`)
          .replace(/,}$/, '}'),
        contentType: 'application/json',
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/x-www-form-urlencoded',
            'multipart/form-data',
            'multipart/form-data; boundary=x',
            'application/octet-stream',
            'application/json; charset=utf-16',
            'application/json; charset=latin1',
            'application/JSON',
            'application/merge-patch+json',
            'a/b/c',
            ';;;',
          ),
        )
        .map(([v, type]) => ({
          mutation: `content type ${type}`,
          body: JSON.stringify(v),
          contentType: type,
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom('truncated', 'trailing', 'bom', 'duplicate', 'empty', 'scalar', 'array'),
        )
        .map(([v, how]) => {
          const text = JSON.stringify(v);
          const body = {
            truncated: text.slice(0, Math.max(1, Math.floor(text.length / 2))),
            trailing: `${text} x`,
            bom: `\ufeff${text}`,
            duplicate: text.replace(/^\{/, '{"a":1,"a":2,').replace(/,}$/, '}'),
            empty: '',
            scalar: '42',
            array: `[${text}]`,
          }[how];
          return { mutation: `malformed ${how}`, body, contentType: 'application/json' };
        }),
    },
    { weight: 1, arbitrary: fc.constant({ mutation: 'no body' }) },
  );
}

/** Over the body limit (a separate, rarer case: building 17 MiB per run would spend the budget on allocation). */
function oversizedPlan(): BodyPlan {
  return {
    mutation: 'oversized',
    body: `{"a":"${'x'.repeat(17 * 1024 * 1024)}"}`,
    contentType: 'application/json',
  };
}

/** `s` with lone surrogates replaced (a URL carries UTF-8; a lone surrogate goes in as `%ed%a0%80` instead). */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

const pathValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('@known') },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 2, arbitrary: nastyString.map((s) => encodeURIComponent(wellFormed(s))) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0',
      '-1',
      '1e9',
      '99999999999999999999999',
      'null',
      'undefined',
      '%00',
      '%zz',
      '%ed%a0%80',
      '%ff',
      '..',
      '%2e%2e',
      '%2F',
      'a%20b',
      'list',
      'openapi',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 9000 }).map((n) => 'a'.repeat(n)) },
);

function queryPlanOf(operation: Operation): fc.Arbitrary<string> {
  const one = (param: Json): fc.Arbitrary<string | undefined> =>
    fc.option(
      fc
        .oneof(
          valueOf(param.schema as Json | undefined, components).map((v) =>
            typeof v === 'string' ? v : JSON.stringify(v),
          ),
          fc.constantFrom(
            '',
            'NaN',
            'Infinity',
            '-1',
            '0',
            '1e400',
            '99999999999999999999',
            'true',
            '[]',
            'a,b',
          ),
          nastyString.map((s) => wellFormed(s)),
          fc.integer({ min: 1000, max: 20_000 }).map((n) => '9'.repeat(n)),
        )
        .map((v) => `${encodeURIComponent(param.name as string)}=${encodeURIComponent(v)}`),
      { nil: undefined },
    );
  return fc
    .tuple(
      fc.tuple(...operation.queryParams.map(one)),
      fc.option(fc.constantFrom('limit=1&limit=2', 'cursor=%zz', 'x=1', '=', '&&', 'a[b]=c', '%00=%00'), {
        nil: undefined,
      }),
    )
    .map(([values, extra]) => [...values, extra].filter((v): v is string => v !== undefined).join('&'));
}

function requestOf(operation: Operation): fc.Arbitrary<Omit<FuzzRequest, 'path'> & { pathValues: string[] }> {
  return fc
    .record({
      credential: fc.constantFrom(...CREDENTIALS),
      plan: bodyPlanOf(operation),
      pathValues: fc.tuple(...operation.pathParams.map(() => pathValue)),
      query: queryPlanOf(operation),
      idempotencyKey: fc.option(
        fc.oneof(
          fc.uuid(),
          // What a header can carry at all (fetch refuses control characters and surrounding blanks).
          fc.string({
            unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
            maxLength: 300,
          }),
          fc.constantFrom('', 'é', 'a b', 'k'.repeat(5000)),
        ),
        { nil: undefined },
      ),
    })
    .map(({ credential, plan, pathValues, query, idempotencyKey }) => {
      const headers: Record<string, string> = {};
      const takesBody = operation.method !== 'GET';
      if (plan.contentType !== undefined && takesBody) headers['content-type'] = plan.contentType;
      if (idempotencyKey !== undefined && operation.idempotencyHeader)
        headers['idempotency-key'] = idempotencyKey;
      return {
        operation,
        credential,
        headers,
        body: takesBody ? plan.body : undefined,
        mutation: query === '' ? plan.mutation : `${plan.mutation}; query ${query.slice(0, 200)}`,
        pathValues: [...pathValues, query],
      };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// The daemon

/**
 * FUZZ_SURVEY=1 collects every broken promise (one example each) and prints them at the end instead of stopping
 * at the first: for triage, not for CI.
 */
const SURVEY = process.env.FUZZ_SURVEY === '1';
/**
 * FUZZ_MEMORY_TRACE=N prints the daemon's memory after a full collection every N random requests (RSS, JS heap,
 * external, V8 heap spaces); with FUZZ_HEAP_SNAPSHOTS=<dir> it also writes a heap snapshot there each time. For
 * finding out what holds memory, not for CI.
 */
const TRACE_EVERY = Number(process.env.FUZZ_MEMORY_TRACE ?? 0);
const SNAPSHOTS = process.env.FUZZ_HEAP_SNAPSHOTS;
const surveyed = new Map<string, string>();

let daemon: DaemonProcess;
let dataDir: string;
let baseUrl: string;
const keys: Record<Credential, string | undefined> = {
  admin: undefined,
  member: undefined,
  none: undefined,
  garbage: undefined,
};

function pidOf(): number {
  const pid = daemon.child.pid;
  if (pid === undefined) throw new Error('the daemon has no pid');
  return pid;
}

/** Resident set size of the daemon in KiB (VmRSS of /proc/PID/status). */
function rssKib(): number {
  const line = readFileSync(`/proc/${pidOf()}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN);
}

function pathOf(operation: Operation, pathValues: readonly string[]): string {
  let i = 0;
  const path = operation.template.replace(/\{[^}]+\}/g, () => {
    const value = pathValues[i++];
    if (value === '@known')
      return knownIds.length > 0 ? knownIds[(i * 7919) % knownIds.length] : 'no-such-id';
    return value;
  });
  const query = pathValues[operation.pathParams.length] ?? '';
  return query === '' ? path : `${path}?${query}`;
}

/**
 * An oversized request through node:http: the daemon answers 413 as soon as it reads Content-Length and closes
 * the connection while the body is still being written, which fetch reports as a network error; here the answer
 * that came first counts and the broken write after it does not.
 */
async function sendOversized(request: FuzzRequest): Promise<Answer> {
  const url = new URL(`${baseUrl}${request.path}`);
  const body = Buffer.from(request.body ?? '');
  const headers: Record<string, string> = {
    ...request.headers,
    authorization: `Bearer ${keys.admin as string}`,
    'content-length': String(body.length),
  };
  return new Promise<Answer>((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: request.operation.method,
        headers,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', () => undefined);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body, text });
        });
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    // Headers first; the body follows in slices only while no answer has come.
    req.flushHeaders();
    let offset = 0;
    const writeMore = (): void => {
      if (answered || req.destroyed) return;
      if (offset >= body.length) {
        req.end();
        return;
      }
      const slice = body.subarray(offset, offset + 256 * 1024);
      offset += slice.length;
      if (req.write(slice)) setTimeout(writeMore, 1);
      else req.once('drain', writeMore);
    };
    setTimeout(writeMore, 1000);
  });
}

async function send(request: FuzzRequest): Promise<Answer> {
  if (request.mutation === 'oversized') return sendOversized(request);
  const headers: Record<string, string> = { ...request.headers };
  if (request.credential === 'garbage') headers.authorization = 'Bearer ds_live_notarealkeyatall000000000000';
  else if (request.credential !== 'none')
    headers.authorization = `Bearer ${keys[request.credential] as string}`;
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.operation.method,
    headers,
    body: request.body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  // An event stream stays open: its status and headers are the answer.
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, headers: response.headers, body: undefined, text: '' };
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** What is wrong with `answer` to `request`; empty when it keeps every promise. */
function problemsOf(request: FuzzRequest, answer: Answer): string[] {
  const problems: string[] = [];
  const requestId = answer.headers.get('x-request-id');
  if (!requestId) problems.push('no X-Request-Id header');
  if (answer.status >= 500 && !answer.headers.get('retry-after')) {
    problems.push(`${answer.status} without Retry-After`);
  }
  if (answer.status >= 400) {
    const error = (answer.body as { error?: Json } | undefined)?.error;
    const isJsonRpc = (answer.body as Json | undefined)?.jsonrpc === '2.0';
    if (!isJsonRpc) {
      if (typeof error !== 'object' || error === null) problems.push('error answer without an error object');
      else {
        if (!(error.code in ERROR_CATALOGUE))
          problems.push(`error code ${String(error.code)} is not in the catalogue`);
        if (typeof error.message !== 'string' || error.message === '')
          problems.push('error without a message');
        if (error.request_id !== requestId)
          problems.push(`error.request_id ${String(error.request_id)} ≠ header`);
        if (/\n\s+at /.test(String(error.message))) problems.push('a stack trace in the message');
      }
    }
  }
  // The client resolves `..` and `%2e%2e` before sending: the path that went out may be another operation's, or none.
  const sent = operationFor(request.operation.method, new URL(`${baseUrl}${request.path}`).pathname);
  if (sent === undefined) {
    // 404, or what the HTTP layer says first about the URL or the body (foundation.e2e.spec.ts: POST /v1/me); a
    // request line over Node's 16 KiB header limit is refused by the parser before any route is looked up.
    const code = String((answer.body as { error?: Json } | undefined)?.error?.code);
    const bodyCodes = [
      'not_found',
      'headers_too_large',
      'uri_too_long',
      'malformed_request',
      'invalid_json',
      'payload_too_large',
      'unsupported_media_type',
      'validation_failed',
    ];
    if (!bodyCodes.includes(code)) problems.push(`${answer.status} ${code} for a path no operation has`);
    return problems;
  }
  problems.push(...contractProblems(answer, sent));
  return problems;
}

function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? '(none)'
      : Buffer.isBuffer(request.body)
        ? `${request.body.length} bytes`
        : request.body.length > 300
          ? `${request.body.slice(0, 300)}… (${request.body.length} chars)`
          : request.body;
  return (
    `${request.operation.method} ${request.path.slice(0, 300)} [${request.credential}] (${request.mutation})\n` +
    `  headers: ${JSON.stringify(request.headers).slice(0, 300)}\n  body: ${body}`
  );
}

async function exchange(request: FuzzRequest): Promise<Answer> {
  let answer: Answer;
  try {
    answer = await send(request);
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    throw new Error(
      `no answer (${String(error)}${cause instanceof Error ? `, ${cause.message}` : ''}) to\n${describeRequest(request)}\n${daemon.output().slice(-3000)}`,
    );
  }
  const problems = problemsOf(request, answer);
  if (problems.length > 0 && SURVEY) {
    for (const problem of problems) {
      const key = `${request.operation.name} ${answer.status}: ${problem}`;
      if (!surveyed.has(key))
        surveyed.set(key, `${describeRequest(request)}\n  answer: ${answer.text.slice(0, 400)}`);
    }
  } else if (problems.length > 0) {
    throw new Error(
      `${answer.status} broke a promise:\n  ${problems.join('\n  ')}\nrequest: ${describeRequest(request)}\n` +
        `answer: ${answer.text.slice(0, 1500)}`,
    );
  }
  if (answer.status < 300 && request.operation.method === 'POST') {
    const id = (answer.body as Json | undefined)?.id;
    if (typeof id === 'string' && knownIds.length < 200 && !request.operation.template.includes('api-keys')) {
      knownIds.push(id);
    }
  }
  return answer;
}

async function createKey(owner: string, role: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label: `fuzz ${role}`, role }),
  });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`creating the ${role} key: ${res.status} ${JSON.stringify(body)}`);
  return body.raw_key as string;
}

// ---------------------------------------------------------------------------------------------------------------

describe('contract-driven HTTP fuzz against the booted daemon', () => {
  let rssBeforeKib = 0;
  let before: MemoryFigures | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ds-http-fuzz-'));
    daemon = spawnDaemon({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
      ENGINE_POOL_SIZE: '1',
      SERVICE_SIGNUP_ENABLED: 'true',
      // The garbage credential is sent on purpose; the per-address throttle is checked elsewhere.
      SERVICE_API_KEY_FAILURES_PER_IP: '1000000',
      // For the memory check: a full collection is asked for through the inspector, on a port of its own.
      NODE_OPTIONS: '--inspect=127.0.0.1:0',
    });
    baseUrl = (await waitForStart(daemon)).replace('[::1]', '127.0.0.1');
    const signup = await fetch(`${baseUrl}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'fuzz-owner@example.test',
        password: 'fuzzing passphrase 1',
        name: 'Fuzz',
      }),
    });
    const owner = ((await signup.json()) as Json).api_key.raw_key as string;
    keys.admin = await createKey(owner, 'admin');
    keys.member = await createKey(owner, 'member');
    process.stdout.write(`http fuzz: ${OPERATIONS.length} operations, seed ${seedOfThisRun()}\n`);
  });

  afterAll(async () => {
    if (SURVEY) {
      process.stdout.write(
        `http fuzz survey: ${surveyed.size} distinct problems\n${[...surveyed].map(([k, v]) => `${k}\n  ${v}`).join('\n')}\n`,
      );
    }
    if (daemon !== undefined && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a generated request to every operation under every credential within the contract', async () => {
    const seed = seedOfThisRun();
    for (const operation of OPERATIONS) {
      for (const credential of CREDENTIALS) {
        const [sample] = fc.sample(
          fc.tuple(valueOf(operation.bodySchema ?? { type: 'object' }, components), queryPlanOf(operation)),
          { seed, numRuns: 1 },
        );
        const [body, query] = sample;
        const request: FuzzRequest = {
          operation,
          credential,
          headers: operation.bodySchema ? { 'content-type': 'application/json' } : {},
          body: operation.bodySchema ? JSON.stringify(body) : undefined,
          path: pathOf(operation, [...operation.pathParams.map(() => '@known'), query]),
          mutation: 'valid (sweep)',
        };
        await exchange(request);
      }
    }
  });

  it('refuses a body over the limit on every operation that takes one, and keeps serving', async () => {
    const oversized = oversizedPlan();
    for (const operation of OPERATIONS.filter((op) => op.bodySchema !== undefined)) {
      const answer = await exchange({
        operation,
        credential: 'admin',
        headers: { 'content-type': oversized.contentType as string },
        body: oversized.body,
        path: pathOf(
          operation,
          operation.pathParams.map(() => 'x'),
        ),
        mutation: oversized.mutation,
      });
      expect([413, 404, 401, 403]).toContain(answer.status);
    }
    expect((await fetch(`${baseUrl}/v1/health`)).status).toBe(200);
  });

  it('answers valid and mutated requests within the contract, without a 5xx and with the catalogue error shape', async () => {
    const sample = async (label: string): Promise<void> => {
      const figures = await collectGarbageIn(daemon.output());
      process.stdout.write(`http fuzz memory ${label}: ${JSON.stringify(figures)}\n`);
      if (SNAPSHOTS !== undefined)
        await takeHeapSnapshotIn(daemon.output(), join(SNAPSHOTS, `${label}.heapsnapshot`));
    };
    if (TRACE_EVERY > 0) await sample('0');
    // "Before" is taken after a warm-up share of the random requests: the first ones compile the daemon's code
    // paths and grow its allocator's arenas once (RSS +5 % in the first 1,000, flat from 2,000 to 10,000 with the
    // JS heap flat all along: docs/reliability.md), which is not memory the requests hold.
    const warmUp = Math.round(runsOf(1) / 4);
    const measureBefore = async (): Promise<void> => {
      before = await collectGarbageIn(daemon.output());
      rssBeforeKib = rssKib();
    };
    const request = fc
      .integer({ min: 0, max: OPERATIONS.length - 1 })
      .chain((index) => requestOf(OPERATIONS[index]));
    let runs = 0;
    await checkProperty(
      fc.asyncProperty(request, async (generated) => {
        const { pathValues, ...rest } = generated;
        await exchange({ ...rest, path: pathOf(generated.operation, pathValues) });
        runs++;
        if (runs === warmUp) await measureBefore();
        if (TRACE_EVERY > 0 && runs % TRACE_EVERY === 0) await sample(String(runs));
      }),
      runsOf(1),
    );
    process.stdout.write(
      `http fuzz: RSS ${rssBeforeKib} KiB after ${warmUp} warm-up requests, ${rssKib()} KiB right after the rest\n`,
    );
  });

  it('holds no more memory afterwards: RSS after a full collection within 20 % of what it was after the warm-up', async () => {
    expect(rssBeforeKib).toBeGreaterThan(0);
    // Both figures after a full collection: Node does not collect while idle, and without one the RSS still held
    // the fuzz's garbage (+35-45 %, the open defect this replaced).
    const after = await collectGarbageIn(daemon.output());
    const rss = rssKib();
    const figures = (m: MemoryFigures | undefined) =>
      m === undefined ? '?' : `JS heap ${m.heapUsed} KiB, code ${m.spaces.code_space ?? '?'} KiB`;
    process.stdout.write(
      `http fuzz: RSS ${rssBeforeKib} KiB after the warm-up (${figures(before)}), ${rss} KiB after the rest and a ` +
        `full collection (${figures(after)})\n`,
    );
    expect(rss).toBeLessThanOrEqual(rssBeforeKib * 1.2);
  });
});
