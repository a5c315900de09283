import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { IfPresent, Problem, Required, Rules } from '../../common/validation';
import {
  EXECUTION_MODES,
  ExecutionMode,
  ExecutionPolicySnapshot,
  OUTCOME_REPORTER_ROLES,
  OutcomeReporterRole,
  reporterRolesOf,
} from './execution-policy.entity';
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

  /** Roles whose outcome reports count toward calibration (default admin and owner). */
  @ApiPropertyOptional({ enum: OUTCOME_REPORTER_ROLES, isArray: true, example: ['admin', 'owner'] })
  @IfPresent()
  @Problem(reporterRolesProblem)
  outcome_reporter_roles?: OutcomeReporterRole[];
}

function reporterRolesProblem(value: unknown): string | undefined {
  const allowed: readonly unknown[] = OUTCOME_REPORTER_ROLES;
  if (!Array.isArray(value) || value.length === 0 || !value.every((role) => allowed.includes(role))) {
    return `must be a non-empty list of ${OUTCOME_REPORTER_ROLES.join(', ')}`;
  }
  if (new Set(value).size !== value.length) return 'must not name a role twice';
  return undefined;
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
    enum: OUTCOME_REPORTER_ROLES,
    isArray: true,
    description: 'The roles whose outcome reports count toward calibration.',
  })
  outcome_reporter_roles!: OutcomeReporterRole[];
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
    outcome_reporter_roles: reporterRolesOf(snapshot),
    coverage_tolerance: coverageTolerance(snapshot.minOutcomes),
    created_by: snapshot.createdBy ?? null,
    created_at: snapshot.createdAt.toISOString(),
  };
}
