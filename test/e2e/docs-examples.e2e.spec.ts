import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signupAccount } from '../factories/accounts';
import { writeTestLicense } from '../support/licenses';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const DOCS = join(__dirname, '..', '..', 'docs');

/**
 * A documented exchange, marked in the markdown by a comment before each fenced JSON block:
 * `<!-- doc-example NAME: request METHOD PATH -->` and `<!-- doc-example NAME: response STATUS check FIELD … -->`.
 * The listed fields must equal the documented ones (numbers to the decimals the doc prints); every other top-level
 * field the doc shows must be in the answer with the same JSON type.
 *
 * `<!-- doc-example NAME: setup THING … -->` (no block) names what the example needs first, made through the API as a
 * user would, its id put where the doc writes a placeholder (in the path and the request):
 * - `connector`: a file connector holding test/fixtures/docs/sales.csv (`con_…`);
 * - `dataset`: that connector ingested as the dataset `sales` (`ds_…`);
 * - `license`: the example runs on a daemon with the license docs/licensing.md shows (ACME Corp, enterprise,
 *   50 devices, 5 per key, expiring 2027-12-31), signed by the test license key;
 * - `trigger`: the trigger of docs/triggers.md's `create` example, on that dataset (`trg_…`);
 * - `fire`: that trigger fired as docs/triggers.md's `fire` example does (`fire_…`).
 */
const SETUPS = ['connector', 'dataset', 'license', 'trigger', 'fire'] as const;
type Setup = (typeof SETUPS)[number];

interface DocExample {
  readonly where: string;
  readonly setup: readonly Setup[];
  readonly method: string;
  readonly path: string;
  readonly request: unknown;
  readonly status: number;
  readonly checked: readonly string[];
  readonly response: Record<string, unknown>;
}

/** The marking comment and the JSON block under it; a request without a body (GET) has no block. */
const MARKED_BLOCK =
  /<!-- doc-example ([\w-]+): (request|response|setup) ([^>]*?) -->(?:\s*```json\n([\s\S]*?)\n```)?/g;

function docExamples(): DocExample[] {
  const examples: DocExample[] = [];
  for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
    const parts = new Map<
      string,
      { setup?: Setup[]; request?: [string, string, unknown]; response?: [number, string[], any] }
    >();
    for (const [, name, kind, spec, body] of readFileSync(join(DOCS, file), 'utf8').matchAll(MARKED_BLOCK)) {
      const entry = parts.get(name) ?? {};
      const words = spec.trim().split(/\s+/);
      if (kind === 'setup') {
        const unknown = words.filter((w) => !(SETUPS as readonly string[]).includes(w));
        if (unknown.length > 0)
          throw new Error(`docs/${file}: doc-example ${name} sets up ${unknown.join(', ')}`);
        entry.setup = words as Setup[];
      } else if (kind === 'request')
        entry.request = [words[0], words[1], body === undefined ? undefined : JSON.parse(body)];
      else
        entry.response = [Number(words[0]), words[0 + 1] === 'check' ? words.slice(2) : [], JSON.parse(body)];
      parts.set(name, entry);
    }
    for (const [name, { setup, request, response }] of parts) {
      if (!request || !response)
        throw new Error(`docs/${file}: doc-example ${name} lacks its request or response`);
      examples.push({
        where: `docs/${file} ${name}`,
        setup: setup ?? [],
        method: request[0],
        path: request[1],
        request: request[2],
        status: response[0],
        checked: response[1],
        response: response[2],
      });
    }
  }
  return examples;
}

function at(value: unknown, path: string): unknown {
  return path
    .split(/\.|(?=\[)/)
    .reduce<unknown>(
      (node, step) =>
        node === undefined || node === null
          ? undefined
          : (node as Record<string, unknown>)[step.startsWith('[') ? step.slice(1, -1) : step],
      value,
    );
}

/** A number as the doc prints it: equal after rounding to the doc's decimals. */
function asDocumented(documented: unknown, actual: unknown): unknown {
  if (typeof documented !== 'number' || typeof actual !== 'number') return actual;
  const decimals = (String(documented).split('.')[1] ?? '').length;
  return Number(actual.toFixed(decimals));
}

const jsonType = (value: unknown): string =>
  Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;

const EXAMPLES = docExamples();

const SALES_CSV = readFileSync(join(__dirname, '..', 'fixtures', 'docs', 'sales.csv'), 'utf8');

/** The license docs/licensing.md shows, as its vendor would issue it. */
const DOCUMENTED_LICENSE = {
  licensee: 'ACME Corp',
  edition: 'enterprise',
  caps: { max_devices: 50, max_devices_per_key: 5 },
  expiresAt: '2027-12-31T00:00:00.000Z',
};

interface Daemon {
  readonly app: TestApp;
  readonly token: string;
}

async function daemon(env: Record<string, string> = {}, dataDir = makeTempDir()): Promise<Daemon> {
  const app = await startTestApp(env, dataDir);
  return { app, token: (await signupAccount(app)).apiKey };
}

/** Makes what the example needs and answers the placeholders the doc writes for it. */
async function setUp({ app, token }: Daemon, setup: readonly Setup[]): Promise<Record<string, string>> {
  const ok = async (method: string, path: string, body: unknown) => {
    const res = await app.request(method, path, { token, body });
    if (res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const ids: Record<string, string> = {};
  const needsTrigger = setup.includes('trigger') || setup.includes('fire');
  const needsDataset = setup.includes('dataset') || needsTrigger;
  if (setup.includes('connector') || needsDataset) {
    ids['con_…'] = (
      await ok('POST', '/v1/connectors', {
        name: `sales-${Date.now()}-${Math.random()}`,
        connector_type: 'file',
        config: { file_type: 'csv', content: SALES_CSV },
      })
    ).id;
  }
  if (needsDataset) {
    ids['ds_…'] = (
      await ok('POST', '/v1/data/connect', {
        connection_type: 'file',
        dataset_name: 'sales',
        connection_id: ids['con_…'],
        visibility: 'private',
      })
    ).dataset_id;
  }
  const documented = (name: string) => {
    const example = EXAMPLES.find((e) => e.where === `docs/triggers.md ${name}`);
    if (!example) throw new Error(`setup: docs/triggers.md has no ${name} example`);
    return ok(example.method, withIds(example.path, ids), withIds(example.request, ids));
  };
  if (needsTrigger) ids['trg_…'] = (await documented('create')).id;
  if (setup.includes('fire')) ids['fire_…'] = (await documented('fire')).fire_id;
  return ids;
}

function withIds<T>(value: T, ids: Record<string, string>): T {
  if (value === undefined) return value;
  let text = JSON.stringify(value);
  for (const [placeholder, id] of Object.entries(ids)) text = text.split(placeholder).join(id);
  return JSON.parse(text) as T;
}

describe('request/response examples in docs/ against a booted daemon', () => {
  let unlicensed: Daemon;
  let licensed: Daemon | undefined;
  beforeAll(async () => {
    unlicensed = await daemon();
  });
  afterAll(async () => {
    await unlicensed.app.close();
    await licensed?.app.close();
  });

  it('finds the marked examples', () => {
    expect(EXAMPLES.map((e) => e.where)).toEqual(
      expect.arrayContaining([
        'docs/simulation.md simulate',
        'docs/simulation.md infrastructure',
        'docs/datasets.md connect',
        'docs/query.md typed',
        'docs/query.md natural-language',
        'docs/licensing.md license',
        'docs/triggers.md create',
        'docs/triggers.md fire',
        'docs/triggers.md policy',
        'docs/triggers.md outcome',
        'docs/query.md sql-report',
        'docs/query.md sql-report-dataset',
      ]),
    );
  });

  it.each(EXAMPLES.map((e) => [e.where, e] as const))(
    '%s answers what the doc says',
    async (_where, example) => {
      let target = unlicensed;
      if (example.setup.includes('license')) {
        if (!licensed) {
          const dir = makeTempDir();
          licensed = await daemon(writeTestLicense(dir, DOCUMENTED_LICENSE), dir);
        }
        target = licensed;
      }
      const ids = await setUp(target, example.setup);
      const res = await target.app.request(example.method, withIds(example.path, ids), {
        token: target.token,
        body: withIds(example.request, ids),
      });
      expect(res.status).toBe(example.status);
      const checked = Object.fromEntries(
        example.checked.map((field) => [
          field,
          asDocumented(at(example.response, field), at(res.body, field)),
        ]),
      );
      expect(checked).toEqual(
        Object.fromEntries(
          example.checked.map((field) => [field, at(withIds(example.response, ids), field)]),
        ),
      );
      const shapes = (body: Record<string, unknown>) =>
        Object.fromEntries(Object.keys(example.response).map((key) => [key, jsonType(body[key])]));
      expect(shapes(res.body)).toEqual(shapes(example.response));
    },
  );
});
