import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const DOCS = join(__dirname, '..', '..', 'docs');

/**
 * A documented exchange, marked in the markdown by a comment before each fenced JSON block:
 * `<!-- doc-example NAME: request METHOD PATH -->` and `<!-- doc-example NAME: response STATUS check FIELD … -->`.
 * The listed fields must equal the documented ones (numbers to the decimals the doc prints); every other top-level
 * field the doc shows must be in the answer with the same JSON type.
 */
interface DocExample {
  readonly where: string;
  readonly method: string;
  readonly path: string;
  readonly request: unknown;
  readonly status: number;
  readonly checked: readonly string[];
  readonly response: Record<string, unknown>;
}

/** The marking comment and the JSON block under it; a request without a body (GET) has no block. */
const MARKED_BLOCK =
  /<!-- doc-example ([\w-]+): (request|response) ([^>]*?) -->(?:\s*```json\n([\s\S]*?)\n```)?/g;

function docExamples(): DocExample[] {
  const examples: DocExample[] = [];
  for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
    const parts = new Map<
      string,
      { request?: [string, string, unknown]; response?: [number, string[], any] }
    >();
    for (const [, name, kind, spec, body] of readFileSync(join(DOCS, file), 'utf8').matchAll(MARKED_BLOCK)) {
      const entry = parts.get(name) ?? {};
      const words = spec.trim().split(/\s+/);
      if (kind === 'request')
        entry.request = [words[0], words[1], body === undefined ? undefined : JSON.parse(body)];
      else
        entry.response = [Number(words[0]), words[0 + 1] === 'check' ? words.slice(2) : [], JSON.parse(body)];
      parts.set(name, entry);
    }
    for (const [name, { request, response }] of parts) {
      if (!request || !response)
        throw new Error(`docs/${file}: doc-example ${name} lacks its request or response`);
      examples.push({
        where: `docs/${file} ${name}`,
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

describe('request/response examples in docs/ against a booted daemon', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  it('finds the marked examples', () => {
    expect(EXAMPLES.map((e) => e.where)).toEqual(
      expect.arrayContaining(['docs/simulation.md simulate', 'docs/simulation.md infrastructure']),
    );
  });

  it.each(EXAMPLES.map((e) => [e.where, e] as const))(
    '%s answers what the doc says',
    async (_where, example) => {
      const res = await t.request(example.method, example.path, { token, body: example.request });
      expect(res.status).toBe(example.status);
      const checked = Object.fromEntries(
        example.checked.map((field) => [
          field,
          asDocumented(at(example.response, field), at(res.body, field)),
        ]),
      );
      expect(checked).toEqual(
        Object.fromEntries(example.checked.map((field) => [field, at(example.response, field)])),
      );
      const shapes = (body: Record<string, unknown>) =>
        Object.fromEntries(Object.keys(example.response).map((key) => [key, jsonType(body[key])]));
      expect(shapes(res.body)).toEqual(shapes(example.response));
    },
  );
});
