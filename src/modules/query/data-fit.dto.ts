import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FIT_FAMILIES, FitFamily } from '../../common/statistics/distribution-fit';
import { EachItem, IfPresent, Problem, Required } from '../../common/validation';
import { WhereDto } from './query.dto';

/** Fewer non-null values than this answer 422 insufficient_data: a fit or a resample of them says little. */
export const MIN_FIT_VALUES = 10;
/** At most this many values are fitted or resampled; above it an evenly spaced sample (docs/simulation.md). */
export const MAX_FIT_VALUES = 1_000_000;
const MAX_WHERE_TERMS = 100;
const MAX_COLUMN_NAME = 256;

const columnProblem = (column: unknown): string | undefined =>
  typeof column === 'string' && column.length > 0 && column.length <= MAX_COLUMN_NAME
    ? undefined
    : `must be a column name (a string of 1 to ${MAX_COLUMN_NAME} characters)`;

const whereProblem = (where: unknown): string | undefined =>
  Array.isArray(where) && where.length <= MAX_WHERE_TERMS
    ? undefined
    : `must be an array of at most ${MAX_WHERE_TERMS} conditions {column, op, value}`;

/** The body of `POST /v1/data/{dataset_id}/fit`. */
export class FitRequest {
  @Required()
  @Problem(columnProblem)
  @ApiProperty({ description: 'A numeric column (or numeric formula) of the dataset.', example: 'units' })
  column!: string;

  @IfPresent()
  @Problem(whereProblem)
  @ApiPropertyOptional({
    type: [WhereDto],
    description: "Only the rows where all these hold: the typed query's `where` (docs/query.md).",
  })
  where?: unknown[];

  @IfPresent()
  @Problem((families) =>
    Array.isArray(families) && families.length > 0 ? undefined : 'must be a non-empty array of family names',
  )
  @EachItem((family, index, items) => {
    if (!FIT_FAMILIES.some((known) => known === family)) return `must be one of ${FIT_FAMILIES.join(', ')}`;
    return items.indexOf(family) < index ? `"${String(family)}" is listed twice` : undefined;
  })
  @ApiPropertyOptional({
    enum: FIT_FAMILIES,
    isArray: true,
    description: 'The families to fit (default: all of them).',
  })
  families?: FitFamily[];
}

export class FitCandidateResponse {
  @ApiProperty({ enum: FIT_FAMILIES })
  family!: FitFamily;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description:
      'normal {mean, sd}, lognormal {meanlog, sdlog}, gamma and weibull {shape, scale}, exponential {rate}, uniform {min, max}, triangular and pert {min, mode, max}.',
    example: { mean: 102.4, sd: 17.9 },
  })
  params!: Record<string, number>;

  @ApiProperty({ description: 'Akaike information criterion, 2k − 2 ln L: lower is better.' })
  aic!: number;

  @ApiProperty({
    description: 'Kolmogorov–Smirnov statistic: the largest gap between the data and the fitted CDF.',
  })
  ks_statistic!: number;
}

export class FitResponse {
  @ApiProperty()
  dataset_id!: string;

  @ApiProperty()
  dataset_name!: string;

  @ApiProperty()
  version!: number;

  @ApiProperty()
  column!: string;

  @ApiProperty({ type: [WhereDto], description: 'The conditions as applied.' })
  where!: readonly unknown[];

  @ApiProperty({ description: 'The number of values fitted.' })
  n!: number;

  @ApiProperty({ description: 'The rows under `where` holding a number in the column.' })
  rows_matching!: number;

  @ApiProperty({
    description: `True when more than ${MAX_FIT_VALUES} rows matched and an evenly spaced sample of them was fitted.`,
  })
  sampled!: boolean;

  @ApiProperty({
    type: [FitCandidateResponse],
    description: 'Every family that can describe the data, lowest AIC first (ties by family name).',
  })
  candidates!: FitCandidateResponse[];

  @ApiProperty({ type: FitCandidateResponse, description: 'The first candidate.' })
  best!: FitCandidateResponse;
}
