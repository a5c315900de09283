import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createApiKey, signupAccount } from '../factories/accounts';
import { DocExample, Exchange, readDocExamples, Setup, unmarkedJsonBlocks } from '../support/doc-examples';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { writeTestLicense } from '../support/licenses';
import { connectStreamable } from '../support/mcp-clients';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

jest.setTimeout(120_000);

/**
 * Every ```json block in docs/*.md sits under one of these comments (blank lines between allowed); a block under
 * neither fails "marks every JSON block", so a new example cannot escape:
 * - `<!-- doc-fragment -->`: a part or a configuration, not a whole exchange; the sentence above says so to readers.
 * - `<!-- doc-example NAME: request METHOD PATH -->` with the body (none for a GET), and
 *   `<!-- doc-example NAME: response STATUS check FIELD … -->` with the answer: run against a booted daemon.
 * - `<!-- doc-example NAME: request MCP TOOL -->` with the tool's arguments, and `response result|error check …` with
 *   the JSON the tool's text content holds: a `tools/call` on a Streamable HTTP MCP session.
 * - `<!-- doc-example NAME: delivery EVENT check FIELD … -->` (no request) with a webhook body: the EVENT the
 *   setup's trigger sent to the loopback receiver.
 * The checked fields (dotted, `[i]` for array items) must equal the documented ones (numbers to the decimals the doc
 * prints); every other top-level field the doc shows must be in the answer with the same JSON type.
 *
 * `<!-- doc-example NAME: setup THING … -->` (no block) names what the example needs first, made through the API as a
 * user would, its id put where the doc writes a placeholder (in the path and the request):
 * - `connector`: a file connector holding test/fixtures/docs/sales.csv (`con_…`);
 * - `dataset`: that connector ingested as the dataset `sales` (`ds_…`);
 * - `orders`: test/fixtures/docs/orders.csv ingested the same way as the dataset `orders` (`ds_9f…`);
 * - `license`: the example runs on a daemon with the license docs/licensing.md shows (ACME Corp, enterprise,
 *   50 devices, 5 per key, expiring 2027-12-31), signed by the test license key;
 * - `trigger`: the trigger of docs/triggers.md's `create` example, on that dataset, its webhook URLs pointed at the
 *   loopback receiver (`trg_…`);
 * - `fire`: that trigger fired as docs/triggers.md's `fire` example does (`fire_…`);
 * - `outcomes`: that trigger fired once per outcome, with the outcomes the documented calibration counts: by the
 *   owner `inside_band`, `below_band` and `above_band` ones, `judged` of them with realized variables of which
 *   `recommended_best` find the recommendation best; by a member key `uncounted_outcomes` more;
 * - `execution`: the `fire` setup on an organization of its own whose execution policy is `always`.
 */

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'docs', name), 'utf8');
const SALES_CSV = fixture('sales.csv');
const ORDERS_CSV = fixture('orders.csv');

/** The license docs/licensing.md shows, as its vendor would issue it. */
const DOCUMENTED_LICENSE = {
  licensee: 'ACME Corp',
  edition: 'enterprise',
  caps: { max_devices: 50, max_devices_per_key: 5 },
  expiresAt: '2027-12-31T00:00:00.000Z',
};

/** Realized variables of docs/triggers.md's trigger (reorder = demand · margin, wait = 0). */
const REORDER_BEST = { demand: 520, margin: 3 };
const WAIT_BEST = { demand: 520, margin: -3 };

const EXAMPLES = readDocExamples();

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

function withIds<T>(value: T, ids: Record<string, string>): T {
  if (value === undefined) return value;
  let text = JSON.stringify(value);
  for (const [placeholder, id] of Object.entries(ids)) text = text.split(placeholder).join(id);
  return JSON.parse(text) as T;
}

function documentedTriggerExample(name: string): DocExample & { exchange: { kind: 'http' } } {
  const example = EXAMPLES.find((e) => e.where === `docs/triggers.md ${name}`);
  if (example?.exchange.kind !== 'http') throw new Error(`setup: docs/triggers.md has no ${name} request`);
  return example as DocExample & { exchange: { kind: 'http' } };
}

/** What each setup is made on. */
const PREREQUISITES: Record<Setup, readonly Setup[]> = {
  connector: [],
  dataset: ['connector'],
  orders: [],
  license: [],
  trigger: ['dataset'],
  fire: ['trigger'],
  outcomes: ['trigger'],
  execution: ['fire'],
};

function withPrerequisites(setup: readonly Setup[]): Set<Setup> {
  const needed = new Set<Setup>();
  const add = (thing: Setup) => {
    needed.add(thing);
    PREREQUISITES[thing].forEach(add);
  };
  setup.forEach(add);
  return needed;
}

interface Caller {
  readonly app: TestApp;
  readonly token: string;
}

class Setting {
  readonly ids: Record<string, string> = {};

  constructor(
    readonly caller: Caller,
    private readonly receiver: Receiver,
  ) {}

  async ok(method: string, path: string, body?: unknown, token = this.caller.token): Promise<any> {
    const res = await this.caller.app.request(method, withIds(path, this.ids), {
      token,
      body: withIds(body, this.ids),
    });
    if (res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  }

  async make(example: DocExample): Promise<void> {
    const needs = withPrerequisites(example.setup);
    if (needs.has('connector')) this.ids['con_…'] = await this.connector(SALES_CSV);
    if (needs.has('dataset')) this.ids['ds_…'] = await this.dataset(this.ids['con_…'], 'sales');
    if (needs.has('orders'))
      this.ids['ds_9f…'] = await this.dataset(await this.connector(ORDERS_CSV), 'orders');
    if (needs.has('execution')) await this.ok('PUT', '/v1/execution-policy', { mode: 'always' });
    if (needs.has('trigger')) await this.trigger();
    if (needs.has('fire')) this.ids['fire_…'] = (await this.fire()).fire_id;
    if (needs.has('outcomes')) await this.outcomes(example.answer);
  }

  private async connector(csv: string): Promise<string> {
    const config = { file_type: 'csv', content: csv };
    const name = `docs-${Date.now()}-${Math.random()}`;
    return (await this.ok('POST', '/v1/connectors', { name, connector_type: 'file', config })).id;
  }

  private async dataset(connectionId: string, name: string): Promise<string> {
    const body = {
      connection_type: 'file',
      dataset_name: name,
      connection_id: connectionId,
      visibility: 'private',
    };
    return (await this.ok('POST', '/v1/data/connect', body)).dataset_id;
  }

  private async trigger() {
    const { method, path, body } = documentedTriggerExample('create').exchange;
    const urls = {
      webhook_url: `${this.receiver.url}/fired`,
      execution_webhook_url: `${this.receiver.url}/execute`,
    };
    this.ids['trg_…'] = (await this.ok(method, path, { ...(body as object), ...urls })).id;
  }

  private fire(): Promise<any> {
    const { method, path, body } = documentedTriggerExample('fire').exchange;
    return this.ok(method, path, body);
  }

  private async outcomes(calibration: Record<string, unknown>) {
    const count = (field: string) => calibration[field] as number;
    const wrongJudged = count('judged') - count('recommended_best');
    const times = <T>(n: number, outcome: (i: number) => T) =>
      Array.from({ length: n }, (_, i) => outcome(i));
    const owner = [
      ...times(count('inside_band'), (i) =>
        i < count('recommended_best')
          ? { realized_value: 1560, realized_variables: REORDER_BEST }
          : { realized_value: 1560 },
      ),
      ...times(count('below_band'), (i) =>
        i < wrongJudged
          ? { realized_value: -1560, realized_variables: WAIT_BEST }
          : { realized_value: -1560 },
      ),
      ...times(count('above_band'), () => ({ realized_value: 5000 })),
    ];
    const member = (await createApiKey(this.caller.app, this.caller.token, { role: 'member' })).rawKey;
    const reports = [
      ...owner.map((body) => [body, this.caller.token] as const),
      ...times(count('uncounted_outcomes'), () => [{ realized_value: 1560 }, member] as const),
    ];
    for (const [body, token] of reports) {
      const { fire_id } = await this.fire();
      await this.ok('POST', `/v1/triggers/trg_…/fires/${fire_id}/outcome`, body, token);
    }
  }
}

describe('request/response examples in docs/ against a booted daemon', () => {
  let receiver: Receiver;
  let unlicensed: Caller;
  let licensed: Caller | undefined;
  const mcpSessions = new Map<string, Client>();

  const daemon = async (env: Record<string, string> = {}, dataDir = makeTempDir()): Promise<Caller> => {
    const app = await startTestApp(env, dataDir);
    return { app, token: (await signupAccount(app)).apiKey };
  };
  const daemonFor = async (example: DocExample): Promise<Caller> => {
    if (!example.setup.includes('license')) return unlicensed;
    if (!licensed) {
      const dir = makeTempDir();
      licensed = await daemon(writeTestLicense(dir, DOCUMENTED_LICENSE), dir);
    }
    return licensed;
  };
  const ownOrganization = async ({ app }: Caller): Promise<Caller> => ({
    app,
    token: (await signupAccount(app)).apiKey,
  });
  const mcpSession = async ({ app, token }: Caller): Promise<Client> => {
    const session = mcpSessions.get(token) ?? (await connectStreamable(app.baseUrl, token)).client;
    mcpSessions.set(token, session);
    return session;
  };

  /** What the daemon answered the example: its status word and the JSON the doc shows for it. */
  async function answer(
    caller: Caller,
    exchange: Exchange,
    ids: Record<string, string>,
  ): Promise<{ status: string; body: any }> {
    switch (exchange.kind) {
      case 'http': {
        const res = await caller.app.request(exchange.method, withIds(exchange.path, ids), {
          token: caller.token,
          body: withIds(exchange.body, ids),
        });
        return { status: String(res.status), body: res.body };
      }
      case 'mcp': {
        const session = await mcpSession(caller);
        const result = await session.callTool({
          name: exchange.tool,
          arguments: withIds(exchange.args, ids) as Record<string, unknown>,
        });
        const [content] = result.content as { text: string }[];
        return { status: result.isError ? 'error' : 'result', body: JSON.parse(content.text) };
      }
      case 'delivery': {
        const delivery = await waitUntil(
          () =>
            receiver.requests
              .map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>)
              .find((body) => body.event === exchange.event && body.trigger_id === ids['trg_…']),
          10_000,
          `${exchange.event} delivery`,
        );
        return { status: 'delivered', body: delivery };
      }
    }
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    unlicensed = await daemon({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` });
  });
  afterAll(async () => {
    for (const session of mcpSessions.values()) await session.close();
    await unlicensed.app.close();
    await licensed?.app.close();
    await receiver.close();
  });

  it('marks every JSON block in docs/ as an example or a fragment', () => {
    expect(unmarkedJsonBlocks()).toEqual([]);
  });

  it('finds the marked examples', () => {
    expect(EXAMPLES.map((e) => e.where)).toEqual(
      expect.arrayContaining([
        'docs/simulation.md simulate',
        'docs/simulation.md infrastructure',
        'docs/simulation.md worked',
        'docs/engine.md result',
        'docs/datasets.md connect',
        'docs/query.md typed',
        'docs/query.md natural-language',
        'docs/query.md sql-report',
        'docs/query.md sql-report-dataset',
        'docs/licensing.md license',
        'docs/mcp.md tool-error',
        'docs/triggers.md create',
        'docs/triggers.md fire',
        'docs/triggers.md fired',
        'docs/triggers.md execute',
        'docs/triggers.md policy',
        'docs/triggers.md outcome',
        'docs/triggers.md calibration',
      ]),
    );
  });

  it.each(EXAMPLES.map((e) => [e.where, e] as const))(
    '%s answers what the doc says',
    async (_where, example) => {
      const base = await daemonFor(example);
      const setting = new Setting(
        example.setup.includes('execution') ? await ownOrganization(base) : base,
        receiver,
      );
      await setting.make(example);
      const { status, body } = await answer(setting.caller, example.exchange, setting.ids);
      expect(status).toBe(example.status);
      const documented = withIds(example.answer, setting.ids);
      const fields = (source: unknown, asIs: boolean) =>
        Object.fromEntries(
          example.checked.map((f) => [
            f,
            asIs ? at(source, f) : asDocumented(at(documented, f), at(source, f)),
          ]),
        );
      expect(fields(body, false)).toEqual(fields(documented, true));
      const shapes = (source: Record<string, unknown>) =>
        Object.fromEntries(Object.keys(example.answer).map((key) => [key, jsonType(source[key])]));
      expect(shapes(body)).toEqual(shapes(example.answer));
    },
  );
});
