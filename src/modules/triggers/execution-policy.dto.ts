import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { IfPresent, Required, Rules } from '../../common/validation';
import { EXECUTION_MODES, ExecutionMode, ExecutionPolicySnapshot } from './execution-policy.entity';
import {
  COVERAGE_TARGET,
  coverageTolerance,
  MAX_MIN_OUTCOMES,
  MIN_MIN_OUTCOMES,
} from './trigger-calibration';

export class ExecutionPolicyDto {
  @Required()
  @IsIn(EXECUTION_MODES, { message: `must be one of ${EXECUTION_MODES.join(', ')}` })
  mode!: ExecutionMode;

  /** Outcomes a trigger needs before it can be calibrated (default 30). */
  @IfPresent()
  @Rules(
    IsInt({ message: 'must be an integer' }),
    Min(MIN_MIN_OUTCOMES, { message: `must be between ${MIN_MIN_OUTCOMES} and ${MAX_MIN_OUTCOMES}` }),
    Max(MAX_MIN_OUTCOMES, { message: `must be between ${MIN_MIN_OUTCOMES} and ${MAX_MIN_OUTCOMES}` }),
  )
  min_outcomes?: number;
}

export class ExecutionPolicyResponse {
  @ApiProperty({
    example: 'pol_0mh3k2l1a09f3c2b7d4e5f6a7b',
    description: 'The snapshot: `policy_snapshot_id` of every decision taken under it.',
  })
  policy_snapshot_id!: string;
  @ApiProperty({ enum: EXECUTION_MODES })
  mode!: ExecutionMode;
  @ApiProperty({ type: 'integer' })
  min_outcomes!: number;
  @ApiProperty({ description: 'The share of outcomes the 90 % band should hold.', example: COVERAGE_TARGET })
  coverage_target!: number;
  @ApiProperty({
    description: 'How far the coverage may stray from the target and still count as calibrated.',
  })
  coverage_tolerance!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Who made the change; null for the default.' })
  created_by!: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export function toExecutionPolicyResponse(snapshot: ExecutionPolicySnapshot): ExecutionPolicyResponse {
  return {
    policy_snapshot_id: snapshot.id,
    mode: snapshot.mode,
    min_outcomes: snapshot.minOutcomes,
    coverage_target: COVERAGE_TARGET,
    coverage_tolerance: coverageTolerance(snapshot.minOutcomes),
    created_by: snapshot.createdBy ?? null,
    created_at: snapshot.createdAt.toISOString(),
  };
}
