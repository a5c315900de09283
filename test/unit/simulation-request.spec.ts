import { AppError } from '../../src/common/errors';
import { parseSimulation, storedSimulation } from '../../src/modules/simulation/simulation.types';
import { createValidationPipe } from '../../src/common/http';
import { parseWire } from '../../src/common/validation';
import { SimulateRequest, toSimulationRequest } from '../../src/modules/simulation/simulation.dto';
import { seedToJson, toEngineRequest } from '../../src/modules/simulation/simulation-request';

/** What parseSimulation does with a body kept to run later (a job's request). */
const validateSimulationRequest = (body: unknown) => toSimulationRequest(parseWire(SimulateRequest, body));

const base = () => ({
  runs: 1000,
  seed: 7,
  scenario: {
    variables: {
      revenue: { low: 100, high: 200 },
      cost: { low: 50, high: 150, distribution: 'triangular', mode: 80 },
    },
    objective: 'maximize_net_value',
    model: 'revenue - cost',
  },
});

function refusal(error: unknown): { field: string; problem: string }[] {
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe('validation_failed');
  expect(appError.status).toBe(422);
  return [...(appError.details ?? [])];
}

const pipe = createValidationPipe();

/** The problems of a body, the same through the HTTP pipe and through parseWire. */
async function problems(body: unknown): Promise<{ field: string; problem: string }[]> {
  let direct: unknown;
  try {
    validateSimulationRequest(body);
  } catch (error) {
    direct = error;
  }
  if (direct === undefined) throw new Error('the request was accepted');
  const viaPipe: unknown = await pipe.transform(body, { type: 'body', metatype: SimulateRequest }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal(viaPipe)).toEqual(refusal(direct));
  return refusal(direct);
}

function withScenario(change: (scenario: any) => void): unknown {
  const body: any = base();
  change(body.scenario);
  return body;
}

describe('validateSimulationRequest', () => {
  it('accepts a full request and keeps the variables in order', () => {
    const request = validateSimulationRequest({
      mode: 'auto',
      runs: 5000,
      seed: 42,
      detail: 'full',
      scenario: {
        variables: {
          z: { low: 1, high: 2, distribution: 'lognormal' },
          a: { low: -1, high: 1, distribution: 'normal' },
          m: { low: 0, high: 10, distribution: 'pert', mode: 10 },
        },
        objective: 'minimize_cost',
        actions: [
          { name: 'buy', model: 'z * 2', set: { a: 0.5 } },
          { name: 'lease', set: { m: { low: 1, high: 2 } } },
        ],
        target: 3,
      },
    });
    expect([...request.scenario.variables.keys()]).toEqual(['z', 'a', 'm']);
    expect(request.seed).toBe(42n);
    expect(request.detail).toBe('full');
    expect(request.scenario.actions?.map((a) => a.name)).toEqual(['buy', 'lease']);
  });

  it('applies the defaults: 10000 runs, no seed, summary detail', () => {
    const request = validateSimulationRequest({
      scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_value' },
    });
    expect(request.runs).toBe(10000);
    expect(request.seed).toBeUndefined();
    expect(request.detail).toBe('summary');
  });

  it.each([
    [
      withScenario((s) => (s.variables.revenue = { low: 300, high: 200 })),
      'scenario.variables.revenue.high',
      'must be greater than or equal to low',
    ],
    [
      withScenario((s) => (s.variables.revenue = { low: 'ten', high: 200 })),
      'scenario.variables.revenue.low',
      'must be a number',
    ],
    [
      withScenario((s) => (s.variables.revenue = { low: Number.POSITIVE_INFINITY, high: 200 })),
      'scenario.variables.revenue.low',
      'must be a finite number',
    ],
    [
      withScenario((s) => (s.variables.revenue = { high: 200 })),
      'scenario.variables.revenue.low',
      'is required',
    ],
    [
      withScenario((s) => (s.variables.revenue = { low: -1.7e308, high: 1.7e308 })),
      'scenario.variables.revenue.high',
      'must be between -1e150 and 1e150',
    ],
    [
      withScenario((s) => (s.variables.revenue = { low: 1e308, high: 1.7e308 })),
      'scenario.variables.revenue.low',
      'must be between -1e150 and 1e150',
    ],
    [
      withScenario((s) => (s.variables.revenue = { low: -1e151, high: 0 })),
      'scenario.variables.revenue.low',
      'must be between -1e150 and 1e150',
    ],
    [
      withScenario((s) => (s.actions = [{ name: 'big', set: { revenue: 2e150 } }])),
      'scenario.actions[0].set.revenue',
      'must be between -1e150 and 1e150',
    ],
    [
      withScenario((s) => (s.variables.revenue = 5)),
      'scenario.variables.revenue',
      'must be an object {low, high, distribution?, mode?}',
    ],
    [
      withScenario((s) => (s.variables.revenue.distribution = 'beta')),
      'scenario.variables.revenue.distribution',
      'must be one of uniform, triangular, pert, normal, lognormal',
    ],
    [
      withScenario((s) => (s.variables.cost.mode = 151)),
      'scenario.variables.cost.mode',
      'must lie within [low, high]',
    ],
    [
      withScenario((s) => (s.variables.revenue = { low: 0, high: 5, distribution: 'lognormal' })),
      'scenario.variables.revenue.low',
      'must be greater than 0 for a lognormal distribution',
    ],
    [
      withScenario((s) => (s.variables.revenue.extra = 1)),
      'scenario.variables.revenue.extra',
      'is not a known field; allowed fields are low, high, distribution, mode',
    ],
    [withScenario((s) => (s.variables = {})), 'scenario.variables', 'must define at least one variable'],
    [withScenario((s) => delete s.variables), 'scenario.variables', 'is required'],
    [
      withScenario(
        (s) =>
          (s.variables = Object.fromEntries(
            Array.from({ length: 257 }, (_, i) => [`v${i}`, { low: 0, high: 1 }]),
          )),
      ),
      'scenario.variables',
      'must define at most 256 variables',
    ],
    [
      withScenario((s) => (s.variables['2x'] = { low: 0, high: 1 })),
      'scenario.variables.2x',
      'variable names must match [A-Za-z_][A-Za-z0-9_]* and be at most 64 characters',
    ],
    [
      withScenario((s) => (s.objective = 'maximize_fun')),
      'scenario.objective',
      'must be one of maximize_net_value, maximize_value, minimize_cost',
    ],
    [withScenario((s) => delete s.objective), 'scenario.objective', 'is required'],
    [
      withScenario((s) => (s.model = 'revenue - costs')),
      'scenario.model',
      "unknown name 'costs' at position 10",
    ],
    [
      withScenario((s) => (s.model = 'revenue - (cost')),
      'scenario.model',
      "expected ')' but found 'end of expression' at position 15",
    ],
    [withScenario((s) => (s.model = 42)), 'scenario.model', 'must be a string expression'],
    [
      withScenario((s) => (s.model = 'a'.repeat(10001))),
      'scenario.model',
      'must be at most 10000 characters',
    ],
    [withScenario((s) => (s.target = 'high')), 'scenario.target', 'must be a number'],
    [
      withScenario((s) => (s.actions = [{ name: 'x' }, { name: 'x' }])),
      'scenario.actions[1].name',
      "duplicate action name 'x'",
    ],
    [withScenario((s) => (s.actions = [])), 'scenario.actions', 'must contain at least one action'],
    [
      withScenario((s) => (s.actions = [{ name: '' }])),
      'scenario.actions[0].name',
      'must be a non-empty string of at most 128 characters without control characters',
    ],
    [
      withScenario((s) => (s.actions = [{ name: 'a\nb' }])),
      'scenario.actions[0].name',
      'must be a non-empty string of at most 128 characters without control characters',
    ],
    [withScenario((s) => (s.actions = [{ model: 'cost' }])), 'scenario.actions[0].name', 'is required'],
    [
      withScenario((s) => (s.actions = [{ name: 'x', model: 'cost * price' }])),
      'scenario.actions[0].model',
      "unknown name 'price' at position 7",
    ],
    [
      withScenario((s) => (s.actions = [{ name: 'x', set: { price: 3 } }])),
      'scenario.actions[0].set.price',
      "unknown variable 'price'",
    ],
    [
      withScenario((s) => (s.actions = [{ name: 'x', set: { cost: { low: 5, high: 1 } } }])),
      'scenario.actions[0].set.cost.high',
      'must be greater than or equal to low',
    ],
    [
      withScenario((s) => (s.actions = [{ name: 'x', set: { cost: 'free' } }])),
      'scenario.actions[0].set.cost',
      'must be a number or an object {low, high, distribution?, mode?}',
    ],
    [
      withScenario((s) => (s.actions = Array.from({ length: 65 }, (_, i) => ({ name: `a${i}` })))),
      'scenario.actions',
      'must contain at most 64 actions',
    ],
    [
      withScenario((s) => {
        for (let i = 0; i < 65; i++) s.variables[`v${i}`] = { low: 0, high: 1 };
        s.correlations = Array.from({ length: 64 }, (_, i) => ({ a: `v${i}`, b: `v${i + 1}`, rank: 0.1 }));
      }),
      'scenario.correlations',
      'may correlate at most 64 distinct variables',
    ],
    [
      withScenario((s) => (s.colour = 'red')),
      'scenario.colour',
      'is not a known field; allowed fields are objective, target, variables, correlations_from_data, model, actions, correlations, adjust_correlations',
    ],
  ])('reports %#: %s %s', async (body, field, problem) => {
    expect(await problems(body)).toContainEqual({ field, problem });
  });

  it('accepts ranges and fixed values up to 1e150 in magnitude', () => {
    const body = withScenario((s) => {
      s.variables.revenue = { low: -1e150, high: 1e150 };
      s.actions = [{ name: 'fixed', set: { revenue: -1e150 } }];
    });
    expect(() => validateSimulationRequest(body)).not.toThrow();
  });

  it.each([
    [{ ...base(), runs: 0 }, 'runs', 'must be between 1 and 10000000'],
    [{ ...base(), runs: 10_000_001 }, 'runs', 'must be between 1 and 10000000'],
    [{ ...base(), runs: 2.5 }, 'runs', 'must be an integer'],
    [{ ...base(), runs: '100' }, 'runs', 'must be an integer'],
    [{ ...base(), seed: -1 }, 'seed', 'must be an unsigned 64-bit integer (0 to 18446744073709551615)'],
    [
      { ...base(), seed: '18446744073709551616' },
      'seed',
      'must be an unsigned 64-bit integer (0 to 18446744073709551615)',
    ],
    [
      { ...base(), seed: 2 ** 60 },
      'seed',
      'is above 2^53 - 1 and cannot be read exactly from a JSON number: send it as a decimal string',
    ],
    [{ ...base(), mode: 'fast' }, 'mode', 'must be "auto"'],
    [{ ...base(), detail: 'all' }, 'detail', 'must be "summary" or "full"'],
    [
      { ...base(), extra: true },
      'extra',
      'is not a known field; allowed fields are mode, runs, seed, detail, scenario',
    ],
    [{ runs: 5 }, 'scenario', 'is required'],
    [[1, 2], 'body', 'the request body must be a JSON object'],
    [null, 'body', 'the request body must be a JSON object'],
  ])('reports %#: %s %s', async (body, field, problem) => {
    expect(await problems(body)).toContainEqual({ field, problem });
  });

  it('lists every problem at once', async () => {
    const found = await problems({
      runs: 0,
      scenario: { variables: { a: { low: 2, high: 1 } }, objective: 'x', model: 'a + b' },
    });
    expect(found.map((p) => p.field)).toEqual([
      'runs',
      'scenario.objective',
      'scenario.variables.a.high',
      'scenario.model',
    ]);
  });

  it('accepts seeds up to 2^64 - 1 as strings and echoes them exactly', () => {
    const request = validateSimulationRequest({ ...base(), seed: '18446744073709551615' });
    expect(request.seed).toBe(18446744073709551615n);
    expect(seedToJson(request.seed!)).toBe('18446744073709551615');
    expect(seedToJson(9007199254740991n)).toBe(9007199254740991);
  });
});

describe('toEngineRequest', () => {
  it('writes the wire format with a definite seed and a stable key order', () => {
    const request = validateSimulationRequest({
      scenario: {
        target: 5,
        actions: [{ set: { b: { high: 2, low: 1 } }, name: 'go' }],
        objective: 'maximize_value',
        variables: { b: { high: 1, low: 0 }, a: { distribution: 'pert', mode: 0.2, high: 1, low: 0 } },
      },
    });
    expect(JSON.stringify(toEngineRequest(request, 99n))).toBe(
      JSON.stringify({
        mode: 'auto',
        runs: 10000,
        seed: 99,
        detail: 'summary',
        scenario: {
          variables: { b: { low: 0, high: 1 }, a: { low: 0, high: 1, distribution: 'pert', mode: 0.2 } },
          objective: 'maximize_value',
          actions: [{ name: 'go', set: { b: { low: 1, high: 2 } } }],
          target: 5,
        },
      }),
    );
  });
});

describe('storedSimulation', () => {
  it('returns the normalised body with the seed fixed, and it validates again unchanged', () => {
    const prepared = storedSimulation(
      parseSimulation({ scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_value' } }),
      true,
    );
    const { seed, ...rest } = prepared;
    expect(rest).toEqual({
      mode: 'auto',
      runs: 10000,
      detail: 'summary',
      scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_value' },
    });
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(storedSimulation(parseSimulation(prepared), true)).toEqual(prepared);
    expect(storedSimulation(parseSimulation({ ...prepared, seed: '123' }), true).seed).toBe(123);
  });
});

describe('the simulate DTO beyond the collector it replaced', () => {
  it('reports only the name of a badly named variable, not its range', async () => {
    const body = withScenario((s) => (s.variables = { '2x': { low: 'a' }, ok: { low: 0, high: 1 } }));
    expect(await problems(body)).toEqual([
      {
        field: 'scenario.variables.2x',
        problem: 'variable names must match [A-Za-z_][A-Za-z0-9_]* and be at most 64 characters',
      },
      { field: 'scenario.model', problem: "unknown name 'revenue' at position 0" },
    ]);
  });

  it('keeps variables named like Object builtins as data', () => {
    const request = validateSimulationRequest({
      scenario: {
        variables: { constructor: { low: 1, high: 2 }, toString: { low: 3, high: 4 } },
        objective: 'maximize_value',
        model: 'constructor + toString',
        actions: [{ name: 'fix', set: { toString: 5 } }],
      },
    });
    expect([...request.scenario.variables]).toEqual([
      ['constructor', { low: 1, high: 2 }],
      ['toString', { low: 3, high: 4 }],
    ]);
    expect(request.scenario.actions?.[0].set).toEqual(new Map([['toString', 5]]));
  });

  it('reports one problem per field, the first in reading order', async () => {
    const body = withScenario((s) => {
      s.variables.revenue = { low: 5, high: 1, distribution: 'lognormal', mode: 'x' };
      s.actions = [
        { name: 7, model: 'revenue + price', set: { cost: Number.POSITIVE_INFINITY, nope: 1 } },
        { name: 'x' },
      ];
    });
    expect(await problems(body)).toEqual([
      { field: 'scenario.variables.revenue.high', problem: 'must be greater than or equal to low' },
      { field: 'scenario.variables.revenue.mode', problem: 'must be a number' },
      {
        field: 'scenario.actions[0].name',
        problem: 'must be a non-empty string of at most 128 characters without control characters',
      },
      { field: 'scenario.actions[0].model', problem: "unknown name 'price' at position 10" },
      { field: 'scenario.actions[0].set.cost', problem: 'must be a finite number' },
      { field: 'scenario.actions[0].set.nope', problem: "unknown variable 'nope'" },
    ]);
  });
});
