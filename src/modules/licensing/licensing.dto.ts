import { ApiProperty } from '@nestjs/swagger';
import { ENTITLEMENTS, Entitlement } from '../../common/auth/entitlements';
import { LicenseCaps } from './license-format';
import { LicenseStatus, LicenseView } from './licensing.service';

const LICENSE_STATUSES: readonly LicenseStatus[] = ['active', 'expired', 'not_yet_valid', 'unlicensed'];

export class ClockRollbackResponse {
  @ApiProperty({ format: 'date-time', description: 'What the wall clock says now.' })
  wall_clock!: string;
  @ApiProperty({ format: 'date-time', description: 'The latest time the appliance has seen before.' })
  latest_recorded!: string;
}

export class LicenseResponse {
  @ApiProperty({ enum: LICENSE_STATUSES })
  status!: LicenseStatus;
  @ApiProperty({ description: 'The licensed edition, or community.', example: 'community' })
  edition!: string;
  @ApiProperty({ type: 'string', nullable: true })
  license_id!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'Acme Corp' })
  licensee!: string | null;
  @ApiProperty({ enum: ENTITLEMENTS, isArray: true })
  entitlements!: readonly Entitlement[];
  @ApiProperty({
    type: 'object',
    description: 'The caps in force; a license may carry further numeric caps beside these two.',
    required: ['max_devices', 'max_devices_per_key'],
    properties: {
      max_devices: { type: 'integer', minimum: 1, description: 'Devices the appliance may bind in all.' },
      max_devices_per_key: { type: 'integer', minimum: 1, description: 'Devices one key may bind.' },
    },
    additionalProperties: { type: 'number' },
    example: { max_devices: 3, max_devices_per_key: 1 },
  })
  caps!: LicenseCaps;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  issued_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  not_before!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expires_at!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Whole days until expiry; null without a license.',
  })
  days_remaining!: number | null;
  @ApiProperty({
    type: ClockRollbackResponse,
    nullable: true,
    description:
      'Set when the clock stands before a time already seen: the license is judged at the later time.',
  })
  clock_rollback!: ClockRollbackResponse | null;
}

export function toLicenseResponse(view: LicenseView): LicenseResponse {
  return {
    status: view.status,
    edition: view.edition,
    license_id: view.licenseId,
    licensee: view.licensee,
    entitlements: view.entitlements,
    caps: { ...view.caps },
    issued_at: view.issuedAt?.toISOString() ?? null,
    not_before: view.notBefore?.toISOString() ?? null,
    expires_at: view.expiresAt?.toISOString() ?? null,
    days_remaining: view.daysRemaining,
    clock_rollback: view.clockRollback
      ? { wall_clock: view.clockRollback.wallClock, latest_recorded: view.clockRollback.latestRecorded }
      : null,
  };
}

export class LicenseSummaryResponse {
  @ApiProperty({ example: 'community' })
  edition!: string;
  @ApiProperty({ enum: LICENSE_STATUSES })
  status!: LicenseStatus;
}
