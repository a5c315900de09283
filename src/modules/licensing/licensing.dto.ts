import { LicenseView } from './licensing.service';

export interface LicenseResponse {
  status: string;
  edition: string;
  license_id: string | null;
  licensee: string | null;
  entitlements: readonly string[];
  caps: Readonly<Record<string, number>>;
  issued_at: string | null;
  not_before: string | null;
  expires_at: string | null;
  days_remaining: number | null;
  clock_rollback: { wall_clock: string; latest_recorded: string } | null;
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
