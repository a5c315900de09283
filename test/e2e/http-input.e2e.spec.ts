import { connect } from 'node:net';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

const nestedObjects = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const nestedArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const json = { 'content-type': 'application/json' };

describe('HTTP input: JSON nesting depth', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  const routes: [string, string, boolean][] = [
    ['POST', '/auth/login', false],
    ['POST', '/auth/signup', false],
    ['POST', '/auth/forgot-password', false],
    ['POST', '/auth/reset-password', false],
    ['POST', '/v1/simulate', true],
    ['POST', '/v1/api-keys', true],
    ['POST', '/v1/connectors', true],
    ['POST', '/v1/query', true],
  ];

  it.each(routes)(
    'refuses 2,000 levels on %s %s with 422 before anything recursive runs',
    async (method, path, auth) => {
      for (const body of [nestedObjects(2000), nestedArrays(2000), `{"x":${nestedArrays(2000)}}`]) {
        const res = await t.request(method, path, {
          rawBody: body,
          headers: json,
          ...(auth ? { token: key } : {}),
        });
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('validation_failed');
        expect(res.body.error.message).toContain('deeper than the limit of 64 levels');
        expect(res.body.error.details).toEqual([
          { field: 'body', problem: expect.stringContaining('SERVICE_MAX_JSON_DEPTH') },
        ]);
        expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
      }
    },
  );

  it('lets a body at the limit through to the route, and counts brackets inside strings as text', async () => {
    const atLimit = await t.request('POST', '/auth/login', { rawBody: nestedObjects(64), headers: json });
    expect(atLimit.status).toBe(422);
    expect(atLimit.body.error.details.map((d: { field: string }) => d.field)).toContain('email');
    const bracketsInStrings = JSON.stringify({
      email: 'nobody@example.test',
      password: '['.repeat(100) + '{"\\'.repeat(100),
    });
    const login = await t.request('POST', '/auth/login', { rawBody: bracketsInStrings, headers: json });
    expect(login.status).toBe(401);
    expect(login.body.error.code).toBe('invalid_credentials');
  });
});

describe('HTTP input: text that is not well-formed Unicode', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  // Found by the HTTP fuzz: a lone surrogate in an e-mail made class-validator's isEmail throw (encodeURI) — a 500.
  it.each([
    ['/auth/forgot-password', '{"email":"a\\ud800@example.test"}', undefined, 'email'],
    [
      '/auth/signup',
      '{"email":"a@example.test","password":"long enough passphrase","name":"x\\udfffy"}',
      undefined,
      'name',
    ],
    ['/auth/login', '{"email":"\\udbff\\udbff@example.test","password":"p"}', undefined, 'email'],
    ['/v1/api-keys', '{"label":"ok","extra":{"deep":["\\uD83D"]}}', true, 'extra.deep[0]'],
  ])('refuses a lone surrogate on POST %s with 422 naming the field', async (path, rawBody, auth, field) => {
    const res = await t.request('POST', path, { rawBody, headers: json, ...(auth ? { token: key } : {}) });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([{ field, problem: expect.stringContaining('lone surrogate') }]);
  });

  // Found by the HTTP fuzz: 1e999 is valid JSON that parses to Infinity; the idempotency fingerprint threw — a 500.
  it.each([
    ['{"request":1e999}', 'request'],
    ['{"request":{"runs":-1E+400}}', 'request.runs'],
    [`{"request":{"seed":${'9'.repeat(400)}}}`, 'request.seed'],
  ])('refuses a number that reads as Infinity (%s) with 422 naming the field', async (rawBody, field) => {
    const res = await t.request('POST', '/v1/jobs', {
      rawBody,
      headers: { ...json, 'idempotency-key': 'abc' },
      token: key,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ field, problem: expect.stringContaining('Infinity') }]);
  });

  it('takes a surrogate pair (an emoji), escaped or not', async () => {
    const res = await t.request('POST', '/v1/api-keys', {
      rawBody: '{"label":"\\ud83d\\udca5 💥"}',
      headers: json,
      token: key,
    });
    expect(res.status).toBe(201);
    expect(res.body.label).toBe('💥 💥');
  });
});

describe('HTTP input: the largest depth an operator may configure', () => {
  it('still answers every route without overflowing (SERVICE_MAX_JSON_DEPTH=512)', async () => {
    const t = await startTestApp({ SERVICE_MAX_JSON_DEPTH: '512' });
    try {
      const key = (await signupAccount(t)).apiKey;
      for (const [path, token] of [
        ['/auth/login', undefined],
        ['/v1/api-keys', key],
        ['/v1/simulate', key],
      ] as const) {
        for (const body of [nestedObjects(512), `{"label":${nestedArrays(511)}}`]) {
          const res = await t.request('POST', path, {
            rawBody: body,
            headers: json,
            ...(token ? { token } : {}),
          });
          expect(res.status).toBe(422);
          expect(res.body.error.code).toBe('validation_failed');
        }
        const over = await t.request('POST', path, {
          rawBody: nestedArrays(513),
          headers: json,
          ...(token ? { token } : {}),
        });
        expect(over.body.error.message).toContain('limit of 512 levels');
      }
    } finally {
      await t.close();
    }
  });
});

describe('HTTP input: media types', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_REPOHOST_WEBHOOK_SECRET: 'repohost-secret' });
    key = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream'])(
    'answers a %s body on a JSON route with 415 unsupported_media_type',
    async (type) => {
      for (const [path, token] of [
        ['/auth/login', undefined],
        ['/v1/simulate', key],
      ] as const) {
        const res = await t.request('POST', path, {
          rawBody: 'email=a&password=b',
          headers: { 'content-type': type },
          ...(token ? { token } : {}),
        });
        expect(res.status).toBe(415);
        expect(res.body.error.code).toBe('unsupported_media_type');
        expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
      }
    },
  );

  it('answers a body without Content-Type with 415, and takes JSON with a charset', async () => {
    const bare = await t.request('POST', '/auth/login', { rawBody: '{"email":"a@b.c","password":"x"}' });
    expect(bare.status).toBe(415);
    const charset = await t.request('POST', '/auth/login', {
      rawBody: '{"email":"nobody@example.test","password":"not-the-password"}',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    expect(charset.status).toBe(401);
    expect(charset.body.error.code).toBe('invalid_credentials');
  });

  it('keeps the upload route and the repohost receiver on their own rules', async () => {
    const upload = await t.request('POST', '/v1/connectors/uploads', {
      rawBody: 'a,b\n1,2\n',
      token: key,
      headers: { 'content-type': 'application/octet-stream', 'x-filename': 'rows.csv' },
    });
    expect(upload.status).toBe(201);
    expect(upload.body.bytes).toBe(8);
    const repohost = await t.request('POST', '/webhooks/repohost', {
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain', 'x-hub-signature-256': 'sha256=00' },
    });
    expect(repohost.status).toBe(401);
    expect(repohost.body.error.code).toBe('invalid_signature');
  });

  it('still answers 404 for an unknown route whatever the body type', async () => {
    const res = await t.request('POST', '/v1/nothing-here', {
      rawBody: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

/** Writes raw bytes to the daemon (optionally half-closing) and reads one response. */
function rawExchange(baseUrl: string, bytes: string, halfClose = false): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    const tryParse = (final: boolean): void => {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) {
        if (final) reject(new Error(`no response: ${JSON.stringify(text)}`));
        return;
      }
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const body = received.subarray(end + 4);
      if (body.length < Number(headers['content-length'] ?? 0)) {
        if (final) reject(new Error('short response'));
        return;
      }
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body.toString('utf8')) });
    };
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', () => tryParse(true));
    socket.write(bytes, () => {
      if (halfClose) socket.end();
    });
  });
}

function expectCatalogueBody(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.body.error.code).toBe(code);
  expect(typeof answer.body.error.message).toBe('string');
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(answer.body.error.request_id).toBe(answer.headers['x-request-id']);
}

describe('HTTP input: answers of the HTTP layer itself', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a path parameter over the router limit with 414 uri_too_long', async () => {
    const answer = await rawExchange(
      t.baseUrl,
      `GET /v1/data/${'a'.repeat(500)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expectCatalogueBody(answer, 414, 'uri_too_long');
  });

  it('answers a query string over the header limit with 414 uri_too_long, not 431', async () => {
    for (const length of [20_000, 70_000]) {
      const answer = await rawExchange(
        t.baseUrl,
        `GET /v1/health?q=${'a'.repeat(length)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      expectCatalogueBody(answer, 414, 'uri_too_long');
      expect(answer.body.error.message).toBe('The request URL is longer than the server accepts.');
    }
  });

  it('answers bad percent-encoding in the path with 400 malformed_request', async () => {
    const answer = await rawExchange(t.baseUrl, 'GET /v1/data/%zz HTTP/1.1\r\nHost: x\r\n\r\n');
    expectCatalogueBody(answer, 400, 'malformed_request');
  });

  it('answers oversized headers with 431 headers_too_large', async () => {
    const answer = await rawExchange(
      t.baseUrl,
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectCatalogueBody(answer, 431, 'headers_too_large');
  });

  it('answers a body shorter than its Content-Length with 400 malformed_request', async () => {
    const answer = await rawExchange(
      t.baseUrl,
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":1}',
      true,
    );
    expectCatalogueBody(answer, 400, 'malformed_request');
  });

  it('answers a request line that is not HTTP with 400 malformed_request, and keeps serving', async () => {
    const answer = await rawExchange(t.baseUrl, 'HELLO THERE\r\n\r\n');
    expectCatalogueBody(answer, 400, 'malformed_request');
    expect((await t.request('GET', '/v1/health')).status).toBe(200);
  });
});

describe('HTTP input: an answer given before the body has arrived', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /**
   * Writes the whole request without reading, then reads what came back: a client busy sending its body. Closed at
   * once with the body unread, the daemon's connection reset destroyed the answer before the client read it (it saw
   * EPIPE or ECONNRESET instead of the error).
   */
  function sendAllThenRead(path: string, contentType: string, bytes: number): Promise<string> {
    const { hostname, port } = new URL(t.baseUrl);
    return new Promise((resolve) => {
      let text = '';
      const socket = connect(Number(port), hostname);
      socket.pause();
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('error', (error) => resolve(`${text}[${error.message}]`));
      socket.on('close', () => resolve(text));
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${bytes}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(bytes, 0x20), () => {
        socket.resume();
        socket.end();
      });
    });
  }

  const refusedEarly: [string, string, string, string][] = [
    ['%00 in the query', '/auth/forgot-password?q=%00', 'application/json', '400 Bad Request'],
    ['a body that is not JSON', '/auth/forgot-password', 'text/plain', '415 Unsupported Media Type'],
  ];

  it.each(refusedEarly)('reaches a client still sending 8 MB: %s', async (_name, path, type, status) => {
    const text = await sendAllThenRead(path, type, 8 * 1024 * 1024);
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status}\r\n`));
    expect(text.toLowerCase()).toContain('connection: close');
  });
});
