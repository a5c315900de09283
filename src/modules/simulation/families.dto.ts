import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import { contextOf, FiniteNumber, isPlainObject, Problem, RawField, Required } from '../../common/validation';
import {
  CorrelationSpec,
  EmpiricalSpec,
  MAX_EMPIRICAL_VALUES,
  MAX_MAGNITUDE,
  PARAM_FAMILIES,
  ParamFamily,
  ParamSpec,
} from './simulation-request';

/**
 * The variable forms of issue 38 beside the `{low, high}` range: a family by its parameters, an empirical sample,
 * and the rank-correlation targets of a scenario. Checked with the engine's rules (native/common/distributions.hpp).
 */

const FAMILY_NAMES = Object.keys(PARAM_FAMILIES) as ParamFamily[];
const MAGNITUDE_PROBLEM = 'must be between -1e150 and 1e150';

function paramsProblem(params: unknown, family: unknown): string | undefined {
  if (!isPlainObject(params)) return "must be an object of the family's parameters";
  if (typeof family !== 'string' || !(family in PARAM_FAMILIES)) return undefined;
  const names: readonly string[] = PARAM_FAMILIES[family as ParamFamily];
  const takes = `${family} takes ${names.join(', ')}`;
  for (const key of Object.keys(params))
    if (!names.includes(key)) return `unknown parameter '${key}'; ${takes}`;
  for (const name of names) {
    const value = params[name];
    if (value === undefined) return `${name} is required; ${takes}`;
    if (typeof value !== 'number' || !Number.isFinite(value)) return `${name} must be a finite number`;
    if (Math.abs(value) > MAX_MAGNITUDE) return `${name} ${MAGNITUDE_PROBLEM}`;
  }
  const p = params as Record<string, number>;
  switch (family as ParamFamily) {
    case 'normal':
      return p.sd < 0 ? 'sd must be greater than or equal to 0' : undefined;
    case 'lognormal':
      return p.sdlog < 0 ? 'sdlog must be greater than or equal to 0' : undefined;
    case 'gamma':
    case 'weibull':
      if (!(p.shape > 0)) return 'shape must be greater than 0';
      return p.scale > 0 ? undefined : 'scale must be greater than 0';
    case 'exponential':
      return p.rate > 0 ? undefined : 'rate must be greater than 0';
    case 'uniform':
      if (p.min > p.max) return 'max must be greater than or equal to min';
      return Number.isFinite(p.max - p.min) ? undefined : 'the range max - min overflows a double';
    case 'triangular':
    case 'pert':
      if (p.min > p.max) return 'max must be greater than or equal to min';
      if (!Number.isFinite(p.max - p.min)) return 'the range max - min overflows a double';
      return p.mode < p.min || p.mode > p.max ? 'mode must lie within [min, max]' : undefined;
  }
}

/** `{distribution, params}`: e.g. gamma {shape, scale}; the names are PARAM_FAMILIES'. */
export class ParamsVariableDto implements ParamSpec {
  @Required()
  @IsIn(FAMILY_NAMES, { message: `must be one of ${FAMILY_NAMES.join(', ')} with params` })
  @ApiProperty({ enum: FAMILY_NAMES })
  distribution!: ParamFamily;

  @Required()
  @Problem<ParamsVariableDto>((params, variable) => paramsProblem(params, variable.distribution))
  @RawField((raw) => raw)
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description:
      'normal {mean, sd}, lognormal {meanlog, sdlog} (of the logarithm), gamma {shape, scale}, weibull {shape, ' +
      'scale}, exponential {rate}, uniform {min, max}, triangular and pert {min, mode, max}.',
    example: { shape: 2.5, scale: 3 },
  })
  params!: Readonly<Record<string, number>>;
}

/** `{distribution: "empirical", values}`: each run draws one of the values (bootstrap). */
export class EmpiricalVariableDto implements EmpiricalSpec {
  @Required()
  @IsIn(['empirical'], { message: 'must be "empirical" with values' })
  @ApiProperty({ enum: ['empirical'] })
  distribution!: 'empirical';

  @Required()
  @Problem((values) => {
    if (!Array.isArray(values) || values.length === 0 || values.length > MAX_EMPIRICAL_VALUES) {
      return `must be an array of 1 to ${MAX_EMPIRICAL_VALUES} numbers`;
    }
    const bad = values.findIndex(
      (v) => typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > MAX_MAGNITUDE,
    );
    return bad < 0 ? undefined : `values[${bad}] must be a finite number between -1e150 and 1e150`;
  })
  @RawField((raw) => raw)
  @ApiProperty({ type: [Number], minItems: 1, maxItems: MAX_EMPIRICAL_VALUES })
  values!: readonly number[];
}

/** Which DTO reads a variable's object: the keys `params` and `values` mark the new forms. */
export function variableFormOf(raw: Record<string, unknown>): 'params' | 'empirical' | 'range' {
  if ('params' in raw) return 'params';
  if ('values' in raw) return 'empirical';
  return 'range';
}

/** The scenario's variable names, attached to each correlation by the scenario. */
function variableProblem(name: unknown, pair: CorrelationDto): string | undefined {
  if (typeof name !== 'string') return 'must be a variable name';
  const variables = contextOf<readonly string[]>(pair) ?? [];
  return variables.includes(name) ? undefined : `unknown variable '${name}'`;
}

/** `{a, b, rank}`: a Spearman rank-correlation target between two of the scenario's variables. */
export class CorrelationDto implements CorrelationSpec {
  @Required()
  @Problem<CorrelationDto>((a, pair) => variableProblem(a, pair))
  @ApiProperty({ example: 'price' })
  a!: string;

  @Required()
  @Problem<CorrelationDto>(
    (b, pair) =>
      variableProblem(b, pair) ?? (b === pair.a ? 'must name a different variable than a' : undefined),
  )
  @ApiProperty({ example: 'demand' })
  b!: string;

  @Required()
  @FiniteNumber()
  @Problem((rank) =>
    typeof rank === 'number' && rank >= -1 && rank <= 1 ? undefined : 'must be between -1 and 1',
  )
  @ApiProperty({ minimum: -1, maximum: 1, example: -0.6 })
  rank!: number;
}

export const AdjustFlag = (): PropertyDecorator => IsBoolean({ message: 'must be true or false' });

/** One rank-correlation target in the answer: what was asked, what was used, what the draws show. */
export class CorrelationResponse {
  @ApiProperty({ example: 'price' })
  a!: string;
  @ApiProperty({ example: 'demand' })
  b!: string;
  @ApiProperty({
    minimum: -1,
    maximum: 1,
    example: -0.6,
    description: 'As requested (0 for a pair the adjustment added).',
  })
  target!: number;
  @ApiPropertyOptional({
    minimum: -1,
    maximum: 1,
    description:
      'With adjust_correlations and an invalid matrix: the value of the nearest valid matrix, used instead.',
  })
  adjusted?: number;
  @ApiProperty({
    minimum: -1,
    maximum: 1,
    example: -0.598,
    description: "Spearman's rank correlation of the draws.",
  })
  achieved!: number;
}
