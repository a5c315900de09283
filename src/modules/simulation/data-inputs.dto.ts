import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { FIT_FAMILIES } from '../../common/statistics/distribution-fit';
import { IfPresent, Nested, Problem, Required, Rules } from '../../common/validation';
import { WhereDto } from '../query/query.dto';

export const DATA_DISTRIBUTIONS = ['fit', 'empirical', ...FIT_FAMILIES] as const;
export type DataDistribution = (typeof DATA_DISTRIBUTIONS)[number];
/** The range a variable from data stands as in the request struct until it is resolved. */
export const DATA_PLACEHOLDER = Object.freeze({ low: 0, high: 1 });
export const DATA_VARIABLE_PROBLEM = 'must be an object {from: {dataset_id, column, where?}, distribution}';
const MAX_WHERE_TERMS = 100;
const MAX_ID_LENGTH = 64;
const MAX_COLUMN_LENGTH = 256;

const textProblem =
  (max: number, what: string) =>
  (value: unknown): string | undefined =>
    typeof value === 'string' && value.length > 0 && value.length <= max ? undefined : what;

/** A numeric column of a dataset version, under the typed query's `where` (checked against the dataset). */
export class ColumnSourceDto {
  @Required()
  @Problem(textProblem(MAX_ID_LENGTH, 'must be a dataset id, as returned by GET /v1/data'))
  @ApiProperty({ example: 'ds_3kq9v1m2x7' })
  dataset_id!: string;

  @Required()
  @Problem(textProblem(MAX_COLUMN_LENGTH, `must be a column name (1 to ${MAX_COLUMN_LENGTH} characters)`))
  @ApiProperty({ example: 'units' })
  column!: string;

  @IfPresent()
  @Problem((where) =>
    Array.isArray(where) && where.length <= MAX_WHERE_TERMS
      ? undefined
      : `must be an array of at most ${MAX_WHERE_TERMS} conditions {column, op, value}`,
  )
  @ApiPropertyOptional({ type: [WhereDto], description: "The typed query's conditions (docs/query.md)." })
  where?: unknown[];
}

/** A variable drawn from a dataset column: fitted (`fit`, or one family) or resampled (`empirical`). */
export class DataVariableDto {
  @Required()
  @Rules(
    Problem((from) =>
      from instanceof ColumnSourceDto ? undefined : 'must be an object {dataset_id, column, where?}',
    ),
    Nested(() => ColumnSourceDto),
  )
  @ApiProperty({ type: ColumnSourceDto })
  from!: ColumnSourceDto;

  @Required()
  @IsIn(DATA_DISTRIBUTIONS, { message: `must be one of ${DATA_DISTRIBUTIONS.join(', ')}` })
  @ApiProperty({
    enum: DATA_DISTRIBUTIONS,
    description:
      '`fit`: every family by maximum likelihood, the lowest AIC drawn; a family name: that family fitted; `empirical`: the values resampled.',
  })
  distribution!: DataDistribution;
}

/** Where an input's values came from: the dataset version, the column and conditions, and how many rows. */
export class InputSourceResponse {
  @ApiProperty({ example: 'ds_3kq9v1m2x7' })
  dataset_id!: string;
  @ApiProperty({ example: 'orders' })
  dataset_name!: string;
  @ApiProperty({ example: 3 })
  version!: number;
  @ApiProperty({ example: 'units' })
  column!: string;
  @ApiProperty({ type: [WhereDto], description: 'The conditions as applied.' })
  where!: readonly unknown[];
  @ApiProperty({ description: 'The values fitted or resampled.', example: 4180 })
  rows_used!: number;
  @ApiProperty({ description: 'The rows under `where` holding a number in the column.', example: 4180 })
  rows_matching!: number;
  @ApiProperty({
    description: 'True when rows_matching exceeded 1,000,000 and an evenly spaced sample was used.',
  })
  sampled!: boolean;
}

export class InputFitResponse {
  @ApiProperty()
  aic!: number;
  @ApiProperty()
  ks_statistic!: number;
}

/** One variable drawn from a dataset, as the run used it. */
export class InputProvenanceResponse {
  @ApiProperty({ type: InputSourceResponse })
  source!: InputSourceResponse;
  @ApiProperty({
    description: 'The family drawn from (the fitted one for `fit`), or `empirical`.',
    example: 'gamma',
  })
  distribution!: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'The fitted parameters (absent for `empirical`).',
    example: { shape: 2.4, scale: 41.7 },
  })
  params?: Record<string, number>;
  @ApiPropertyOptional({
    type: InputFitResponse,
    description: 'How well the family fits (absent for `empirical`).',
  })
  fit?: InputFitResponse;
}
