import { startTestApp, TestApp } from '../support/test-app';

/**
 * Routes that answer without a credential. Everything else the daemon registers — including routes added later —
 * must answer 401 to an anonymous request. A new public route is added here on purpose, never by accident.
 */
const PUBLIC_ROUTES: readonly RegExp[] = [
  /^(GET|HEAD) \/v1\/health$/,
  /^(GET|HEAD) \/v1\/ready$/,
  /^(GET|HEAD) \/metrics$/,
  /^[A-Z]+ \/auth\/.+$/,
  /^POST \/webhooks\/repohost$/,
];

interface RouteInfo {
  readonly method: string;
  readonly url: string;
}

/**
 * Every route Fastify knows, from its own route table. `printRoutes({commonPrefix: false})` prints a tree whose
 * children carry only the part of the path below their parent, so the full path is rebuilt from the indentation.
 */
function registeredRoutes(t: TestApp): RouteInfo[] {
  const printed = t.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const routes: RouteInfo[] = [];
  const stack: string[] = [];
  for (const line of printed.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    stack.length = match[1].length / 4;
    stack.push(match[2]);
    if (!match[3]) continue;
    for (const method of match[3].split(',').map((m) => m.trim()))
      routes.push({ method, url: stack.join('') });
  }
  return routes;
}

function concrete(url: string): string {
  return url.replace(/:[A-Za-z0-9_]+/g, 'x123').replace(/\*/g, 'x123');
}

describe('every registered route requires a credential unless it is listed as public', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Every route is probed with a made-up key from one address: far more failures than the guessing throttle allows.
    t = await startTestApp({ SERVICE_API_KEY_FAILURES_PER_IP: '100000' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('finds the routes of the daemon', () => {
    const routes = registeredRoutes(t).map((r) => `${r.method} ${r.url}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /v1/health',
        'GET /v1/me',
        'POST /v1/api-keys',
        'DELETE /v1/api-keys/:key_id',
        'POST /auth/signup',
      ]),
    );
  });

  it('answers 401 authentication_required on every protected route', async () => {
    const routes = registeredRoutes(t).filter((r) => r.method !== 'OPTIONS');
    const unexpected: string[] = [];
    for (const route of routes) {
      const label = `${route.method} ${route.url}`;
      if (PUBLIC_ROUTES.some((pattern) => pattern.test(label))) continue;
      const res = await t.request(route.method, concrete(route.url));
      const code = route.method === 'HEAD' ? 'authentication_required' : res.body?.error?.code;
      if (res.status !== 401 || code !== 'authentication_required')
        unexpected.push(`${label} → ${res.status} ${res.text}`);
    }
    expect(unexpected).toEqual([]);
  });

  it('answers 401 invalid_api_key on every protected route for a made-up key', async () => {
    const fake = `dsk_live_${'Q'.repeat(43)}`;
    const unexpected: string[] = [];
    for (const route of registeredRoutes(t).filter((r) => r.method !== 'OPTIONS' && r.method !== 'HEAD')) {
      const label = `${route.method} ${route.url}`;
      if (PUBLIC_ROUTES.some((pattern) => pattern.test(label))) continue;
      const res = await t.request(route.method, concrete(route.url), { token: fake });
      if (res.status !== 401 || res.body?.error?.code !== 'invalid_api_key')
        unexpected.push(`${label} → ${res.status}`);
    }
    expect(unexpected).toEqual([]);
  });
});
