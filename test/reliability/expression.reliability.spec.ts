import fc from 'fast-check';
import {
  evaluate,
  Expression,
  ExpressionError,
  parseExpression,
} from '../../src/common/expression/expression';
import {
  expressionArbitrary,
  expressionTextArbitrary,
  printExpression,
  VARIABLES,
  withoutPositions,
} from './support/expression-printer';
import { startWarmEngine, WarmEngine } from './support/engine-worker';
import { checkProperty, expectTypedOutcome, runsOf } from './support/property';

/** Values within the engine's documented range for a set variable (±1e150). */
const scopeArbitrary = fc.record({
  x: fc.oneof(fc.double({ min: -1e150, max: 1e150, noNaN: true }), fc.integer({ min: -5, max: 5 })),
  y: fc.oneof(fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.constantFrom(0, -0, 1, -1)),
  z: fc.integer({ min: -100, max: 100 }),
});

type EngineOutcome = { value: number } | { refusal: string };

/** The model evaluated by the C++ engine: one run with every variable set to a number, read back as the minimum. */
async function engineEvaluate(
  engine: WarmEngine,
  model: string,
  scope: Record<string, number>,
): Promise<EngineOutcome> {
  const request = {
    runs: 1,
    seed: 1,
    scenario: {
      variables: Object.fromEntries(VARIABLES.map((name) => [name, { low: 0, high: 1 }])),
      objective: 'maximize_net_value',
      actions: [{ name: 'a', model, set: scope }],
    },
  };
  const reply = await engine.worker.run(request, 10_000);
  if (reply.type === 'result') {
    const actions = (reply.result as unknown as { actions: { min: number }[] }).actions;
    return { value: actions[0].min };
  }
  const error = reply.error as { code: string; details?: { problem: string }[] };
  return { refusal: `${error.code}: ${error.details?.[0]?.problem ?? ''}` };
}

/** What the TypeScript side says of the same model and values, in the engine's terms. */
function typescriptEvaluate(model: string, scope: Record<string, number>): EngineOutcome {
  let tree: Expression;
  try {
    tree = parseExpression(model, VARIABLES);
  } catch (error) {
    if (error instanceof ExpressionError) return { refusal: `validation_failed: ${error.message}` };
    throw error;
  }
  const value = evaluate(tree, scope);
  if (!Number.isFinite(value)) return { refusal: 'validation_failed: non-finite' };
  return { value };
}

/** exp, log and pow come from V8 on one side and glibc on the other: they may differ in the last bit. */
function usesLibm(tree: Expression): boolean {
  switch (tree.kind) {
    case 'number':
    case 'name':
      return false;
    case 'negate':
      return usesLibm(tree.operand);
    case 'binary':
      return tree.operator === '^' || usesLibm(tree.left) || usesLibm(tree.right);
    case 'call':
      return tree.fn === 'exp' || tree.fn === 'log' || tree.args.some(usesLibm);
  }
}

/** The largest finite magnitude met while evaluating: the scale a last-bit difference is measured against. */
function largestMagnitude(tree: Expression, scope: Record<string, number>): number {
  const own = Math.abs(evaluate(tree, scope));
  const children =
    tree.kind === 'negate'
      ? [tree.operand]
      : tree.kind === 'binary'
        ? [tree.left, tree.right]
        : tree.kind === 'call'
          ? tree.args
          : [];
  return Math.max(Number.isFinite(own) ? own : 0, ...children.map((child) => largestMagnitude(child, scope)));
}

const LIBM_RELATIVE_TOLERANCE = 1e-6;

function sameOutcome(
  engine: EngineOutcome,
  typescript: EngineOutcome,
  closeEnough: (a: number, b: number) => boolean = (a, b) => a === b,
): boolean {
  if ('value' in engine && 'value' in typescript) return closeEnough(engine.value, typescript.value);
  if ('refusal' in engine && 'refusal' in typescript) {
    return typescript.refusal.endsWith('non-finite')
      ? engine.refusal.includes('evaluates to a non-finite number')
      : engine.refusal === typescript.refusal;
  }
  return false;
}

function comparatorFor(tree: Expression, scope: Record<string, number>): (a: number, b: number) => boolean {
  if (!usesLibm(tree)) return (a, b) => a === b;
  const scale = largestMagnitude(tree, scope);
  return (a, b) => Math.abs(a - b) <= LIBM_RELATIVE_TOLERANCE * scale;
}

describe('the model expression language under fuzzing', () => {
  it('prints and re-parses every generated tree to the same tree and the same value', async () => {
    await checkProperty(
      fc.property(expressionArbitrary, scopeArbitrary, (tree, scope) => {
        const reparsed = parseExpression(printExpression(tree), VARIABLES);
        expect(withoutPositions(reparsed)).toEqual(withoutPositions(tree));
        expect(Object.is(evaluate(reparsed, scope), evaluate(tree, scope))).toBe(true);
      }),
    );
  });

  it('answers any text with a tree or an ExpressionError, never a raw exception or a hang', async () => {
    await checkProperty(
      fc.asyncProperty(expressionTextArbitrary, async (text) => {
        await expectTypedOutcome(() => parseExpression(text, VARIABLES), [ExpressionError]);
      }),
    );
  });

  describe('against the C++ engine', () => {
    let engine: WarmEngine;
    beforeAll(async () => {
      engine = await startWarmEngine();
    });
    afterAll(() => engine?.stop());

    it('evaluates generated models to the same number, or refuses them the same way', async () => {
      await checkProperty(
        fc.asyncProperty(expressionArbitrary, scopeArbitrary, async (tree, generated) => {
          // The engine gets the values as JSON, where -0 is written 0: both sides evaluate what was sent.
          const scope = JSON.parse(JSON.stringify(generated)) as Record<string, number>;
          const model = printExpression(tree);
          const [native, typescript] = [
            await engineEvaluate(engine, model, scope),
            typescriptEvaluate(model, scope),
          ];
          if (!sameOutcome(native, typescript, comparatorFor(tree, scope))) {
            throw new Error(
              `${model} with ${JSON.stringify(scope)}: engine ${JSON.stringify(native)}, TypeScript ${JSON.stringify(typescript)}`,
            );
          }
        }),
        runsOf(0.5),
      );
    });

    it('refuses malformed text at the same position with the same words', async () => {
      await checkProperty(
        fc.asyncProperty(expressionTextArbitrary, async (text) => {
          const scope = { x: 1, y: 2, z: 3 };
          const [native, typescript] = [
            await engineEvaluate(engine, text, scope),
            typescriptEvaluate(text, scope),
          ];
          if (!sameOutcome(native, typescript)) {
            throw new Error(
              `${JSON.stringify(text)}: engine ${JSON.stringify(native)}, TypeScript ${JSON.stringify(typescript)}`,
            );
          }
        }),
        runsOf(0.5),
      );
    });
  });
});
