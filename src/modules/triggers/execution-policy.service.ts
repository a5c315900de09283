import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import {
  DEFAULT_OUTCOME_REPORTER_ROLES,
  ExecutionMode,
  ExecutionPolicySnapshot,
  OutcomeReporterRole,
  reporterRolesOf,
} from './execution-policy.entity';
import { ExecutionPolicyRepository } from './execution-policy.repository';
import { DEFAULT_MIN_OUTCOMES } from './trigger-calibration';

const DEFAULT_MODE: ExecutionMode = 'calibrated_only';
const APPEND_TRIES = 5;

@Injectable()
export class ExecutionPolicyService {
  constructor(
    private readonly snapshots: ExecutionPolicyRepository,
    private readonly clock: Clock,
  ) {}

  /** The snapshot in force; an org that never changed its policy gets its default written once, as snapshot 0. */
  async current(orgId: string): Promise<ExecutionPolicySnapshot> {
    for (let i = 0; i < APPEND_TRIES; i++) {
      const latest = await this.snapshots.latest(orgId);
      if (latest) return latest;
      const created = await this.snapshots.append(
        orgId,
        0,
        {
          mode: DEFAULT_MODE,
          minOutcomes: DEFAULT_MIN_OUTCOMES,
          outcomeReporterRoles: DEFAULT_OUTCOME_REPORTER_ROLES.join(','),
          createdBy: null,
        },
        this.clock.now(),
      );
      if (created) return created;
    }
    throw new AppError('conflict', 'The execution policy is being changed concurrently; try again.');
  }

  /** A change: a new snapshot, unless the policy already says exactly this (then the current one is answered). */
  async set(
    orgId: string,
    policy: {
      mode: ExecutionMode;
      minOutcomes: number;
      outcomeReporterRoles: readonly OutcomeReporterRole[];
    },
    createdBy: string | null,
  ): Promise<ExecutionPolicySnapshot> {
    const reporterRoles = [...new Set(policy.outcomeReporterRoles)].sort().join(',');
    for (let i = 0; i < APPEND_TRIES; i++) {
      const latest = await this.current(orgId);
      if (
        latest.mode === policy.mode &&
        latest.minOutcomes === policy.minOutcomes &&
        reporterRolesOf(latest).sort().join(',') === reporterRoles
      ) {
        return latest;
      }
      const created = await this.snapshots.append(
        orgId,
        latest.seq + 1,
        {
          mode: policy.mode,
          minOutcomes: policy.minOutcomes,
          outcomeReporterRoles: reporterRoles,
          createdBy,
        },
        this.clock.now(),
      );
      if (created) return created;
    }
    throw new AppError('conflict', 'The execution policy is being changed concurrently; try again.');
  }

  async snapshot(orgId: string, id: string): Promise<ExecutionPolicySnapshot> {
    const found = await this.snapshots.findForOrg(orgId, id);
    if (!found) throw new AppError('not_found', 'No execution policy snapshot with this id.');
    return found;
  }
}
