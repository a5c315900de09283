import { parseWire } from '../../src/common/validation';
import { readPlainRequest } from '../../src/modules/simulation/plain-request';
import { SimulateRequest, toSimulationRequest } from '../../src/modules/simulation/simulation.dto';
import { SimulationRequest } from '../../src/modules/simulation/simulation-request';

/** The DTOs' answer: the request, or undefined when they refuse the body. */
function viaDtos(body: unknown): SimulationRequest | undefined {
  try {
    return toSimulationRequest(parseWire(SimulateRequest, body));
  } catch {
    return undefined;
  }
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const common = () => ({
  runs: 10_000,
  seed: 42,
  scenario: {
    variables: { a: { low: 0, high: 10 }, b: { low: -1, high: 11 }, c: { low: -2, high: 12 } },
    objective: 'maximize_net_value',
    model: 'a * b - c',
  },
});

const accepted: unknown[] = [
  common(),
  { scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'minimize_cost' } },
  {
    mode: 'auto',
    runs: 1,
    seed: '18446744073709551615',
    detail: 'full',
    scenario: {
      variables: {
        z: { low: 1, high: 2, distribution: 'lognormal' },
        n: { low: -1, high: 1, distribution: 'normal', mode: 99 },
        t: { low: 0, high: 10, distribution: 'triangular', mode: 10 },
        p: { low: 0, high: 10, distribution: 'pert', mode: 0 },
        u: { low: 5, high: 5, distribution: 'uniform' },
        __proto__x: { low: -1e150, high: 1e150 },
      },
      objective: 'maximize_value',
      model: 'if(z > 1.5, max(n, t), -p) + u ^ 2 + __proto__x',
      target: -3.5,
    },
  },
];

/** Every way of breaking (or bending) one field of the common body, each tried on its own. */
const changes: [string, (body: any) => void][] = [];
const badValues: unknown[] = [
  null,
  '1',
  true,
  [],
  {},
  -1,
  0,
  0.5,
  Infinity,
  -Infinity,
  2e150,
  10_000_001,
  2 ** 53,
  '',
];
for (const value of badValues) {
  changes.push([`runs = ${JSON.stringify(value)}`, (b) => (b.runs = value)]);
  changes.push([`seed = ${JSON.stringify(value)}`, (b) => (b.seed = value)]);
  changes.push([`mode = ${JSON.stringify(value)}`, (b) => (b.mode = value)]);
  changes.push([`detail = ${JSON.stringify(value)}`, (b) => (b.detail = value)]);
  changes.push([`scenario = ${JSON.stringify(value)}`, (b) => (b.scenario = value)]);
  changes.push([`objective = ${JSON.stringify(value)}`, (b) => (b.scenario.objective = value)]);
  changes.push([`model = ${JSON.stringify(value)}`, (b) => (b.scenario.model = value)]);
  changes.push([`target = ${JSON.stringify(value)}`, (b) => (b.scenario.target = value)]);
  changes.push([`variables = ${JSON.stringify(value)}`, (b) => (b.scenario.variables = value)]);
  changes.push([`variables.a = ${JSON.stringify(value)}`, (b) => (b.scenario.variables.a = value)]);
  for (const field of ['low', 'high', 'distribution', 'mode']) {
    changes.push([`a.${field} = ${JSON.stringify(value)}`, (b) => (b.scenario.variables.a[field] = value)]);
  }
}
const moreChanges: [string, (body: any) => void][] = [
  ['unknown body field', (b) => (b.extra = 1)],
  ['unknown scenario field', (b) => (b.scenario.extra = 1)],
  ['unknown range field', (b) => (b.scenario.variables.a.extra = 1)],
  ['__proto__ in the body', (b) => Object.defineProperty(b, '__proto__', { value: {}, enumerable: true })],
  ['actions', (b) => (b.scenario.actions = [{ name: 'go' }])],
  ['no variables', (b) => (b.scenario.variables = {})],
  ['a bad variable name', (b) => (b.scenario.variables['1x'] = { low: 0, high: 1 })],
  ['a long variable name', (b) => (b.scenario.variables['x'.repeat(65)] = { low: 0, high: 1 })],
  ['a variable named constructor', (b) => (b.scenario.variables.constructor = { low: 0, high: 1 })],
  ['257 variables', (b) => (b.scenario.variables = manyVariables(257))],
  ['256 variables', (b) => ((b.scenario.variables = manyVariables(256)), delete b.scenario.model)],
  ['low above high', (b) => (b.scenario.variables.a = { low: 2, high: 1 })],
  ['high - low overflows', (b) => (b.scenario.variables.a = { low: -1e150, high: 1e150 })],
  ['lognormal from 0', (b) => (b.scenario.variables.a = { low: 0, high: 1, distribution: 'lognormal' })],
  ['lognormal from 1', (b) => (b.scenario.variables.a = { low: 1, high: 2, distribution: 'lognormal' })],
  [
    'triangular mode outside',
    (b) => (b.scenario.variables.a = { low: 0, high: 1, distribution: 'pert', mode: 2 }),
  ],
  [
    'normal mode outside',
    (b) => (b.scenario.variables.a = { low: 0, high: 1, distribution: 'normal', mode: 2 }),
  ],
  ['mode without distribution', (b) => (b.scenario.variables.a = { low: 0, high: 1, mode: -5 })],
  ['missing low', (b) => delete b.scenario.variables.a.low],
  ['missing objective', (b) => delete b.scenario.objective],
  ['missing scenario', (b) => delete b.scenario],
  ['unknown name in the model', (b) => (b.scenario.model = 'a + d')],
  ['bad model syntax', (b) => (b.scenario.model = 'a +')],
  ['model too long', (b) => (b.scenario.model = `a${' + a'.repeat(2500)}`)],
  ['seed as a string', (b) => (b.seed = '12')],
  ['seed above 2^64', (b) => (b.seed = '18446744073709551616')],
  ['runs at the maximum', (b) => (b.runs = 10_000_000)],
];
changes.push(...moreChanges);

function manyVariables(count: number): Record<string, { low: number; high: number }> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`v${i}`, { low: 0, high: 1 }]));
}

describe('readPlainRequest (the common /v1/simulate body without the DTO classes)', () => {
  it.each(accepted.map((body, i) => [i, body]))('reads accepted body %i as the DTOs do', (_i, body) => {
    const expected = viaDtos(clone(body));
    expect(expected).toBeDefined();
    const read = readPlainRequest(clone(body));
    expect(read).toEqual(expected);
    expect([...read!.scenario.variables.keys()]).toEqual([...expected!.scenario.variables.keys()]);
  });

  it.each(changes)('never accepts what the DTOs refuse, nor reads it otherwise: %s', (_name, change) => {
    const body: any = clone(common());
    change(body);
    const read = readPlainRequest(body);
    const expected = viaDtos(body);
    if (expected === undefined) expect(read).toBeUndefined();
    else if (read !== undefined) expect(read).toEqual(expected);
  });

  it('leaves bodies with actions to the DTOs', () => {
    const body: any = common();
    body.scenario.actions = [{ name: 'go' }];
    expect(viaDtos(body)).toBeDefined();
    expect(readPlainRequest(body)).toBeUndefined();
  });
});
