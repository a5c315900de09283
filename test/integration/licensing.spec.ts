import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LicensingService } from '../../src/modules/licensing/licensing.service';
import { armor, buildLicense, licensePayload, signParts, writeTestLicense } from '../support/licenses';
import { makeTempDir, startTestApp } from '../support/test-app';
import { executeOnStoppedStore, queryAppStore } from '../support/test-store';

const DAY_MS = 86_400_000;

describe('LicensingService in the booted daemon', () => {
  it('runs the community edition, unlicensed, without a license file', async () => {
    const t = await startTestApp();
    try {
      const licensing = t.app.get(LicensingService);
      expect(licensing.getStatus()).toMatchObject({
        status: 'unlicensed',
        edition: 'community',
        licensee: null,
        expiresAt: null,
        daysRemaining: null,
        caps: { max_devices: 3, max_devices_per_key: 1 },
        clockRollback: null,
      });
      expect(licensing.hasEntitlement('connectors')).toBe(true);
      expect(licensing.hasEntitlement('mcp')).toBe(false);
      expect(licensing.hasEntitlement('runtime_library')).toBe(false);
      expect(licensing.getCaps()).toEqual({
        maxDevices: 3,
        maxDevicesPerKey: 1,
        maxDevicesScope: 'organization',
      });
    } finally {
      await t.close();
    }
  });

  it('applies a valid license: edition, entitlements, caps and days remaining', async () => {
    const dir = makeTempDir();
    const expiresAt = new Date(Date.now() + 10 * DAY_MS + 3_600_000);
    const env = writeTestLicense(dir, {
      edition: 'enterprise',
      licensee: 'ACME Corp',
      entitlements: ['simulation', 'mcp', 'runtime_library'],
      caps: { max_devices: 50, max_devices_per_key: 5 },
      expiresAt,
    });
    const t = await startTestApp(env, dir);
    try {
      const licensing = t.app.get(LicensingService);
      const status = licensing.getStatus();
      expect(status).toMatchObject({
        status: 'active',
        edition: 'enterprise',
        licensee: 'ACME Corp',
        caps: { max_devices: 50, max_devices_per_key: 5 },
        daysRemaining: 10,
      });
      expect(status.expiresAt?.toISOString()).toBe(expiresAt.toISOString());
      // A license never grants less than the community edition.
      expect(status.entitlements).toEqual([
        'simulation',
        'jobs',
        'webhooks',
        'triggers',
        'connectors',
        'datasets',
        'sql_reports',
        'mcp',
        'runtime_library',
      ]);
      expect(licensing.getCaps()).toEqual({
        maxDevices: 50,
        maxDevicesPerKey: 5,
        maxDevicesScope: 'appliance',
      });
    } finally {
      await t.close();
    }
  });

  it('degrades an expired license to community with status expired', async () => {
    const dir = makeTempDir();
    const env = writeTestLicense(dir, {
      issuedAt: new Date(Date.now() - 40 * DAY_MS),
      notBefore: new Date(Date.now() - 40 * DAY_MS),
      expiresAt: new Date(Date.now() - DAY_MS),
      caps: { max_devices: 50, max_devices_per_key: 5 },
    });
    const t = await startTestApp(env, dir);
    try {
      const licensing = t.app.get(LicensingService);
      expect(licensing.getStatus()).toMatchObject({
        status: 'expired',
        edition: 'community',
        licensee: 'Test Licensee GmbH',
        daysRemaining: 0,
        caps: { max_devices: 3, max_devices_per_key: 1 },
      });
      expect(licensing.hasEntitlement('mcp')).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('keeps a license that is not yet valid at community until its not_before', async () => {
    const dir = makeTempDir();
    const env = writeTestLicense(dir, { notBefore: new Date(Date.now() + 2 * DAY_MS) });
    const t = await startTestApp(env, dir);
    try {
      expect(t.app.get(LicensingService).getStatus()).toMatchObject({
        status: 'not_yet_valid',
        edition: 'community',
      });
    } finally {
      await t.close();
    }
  });

  it('refuses to start on a bad license: tampered, unknown key, garbage, retired format', async () => {
    const cases: [string, string][] = [
      ['garbage', 'license_invalid'],
      [buildLicense().replace(/\n[A-Za-z0-9+/]{10}/, '\nAAAAAAAAAA'), 'license_invalid'],
      [armor({ ...signParts(licensePayload()).envelope, v: 1 }), 'license_format_retired'],
    ];
    for (const [text, event] of cases) {
      const dir = makeTempDir();
      const env = writeTestLicense(dir);
      writeFileSync(join(dir, 'license.lic'), text);
      await expect(startTestApp(env, dir)).rejects.toMatchObject({ name: 'StartupError', event });
    }
    // Signed by the test key, but without SERVICE_LICENSE_PUBLIC_KEY_FILE that key is unknown.
    const dir = makeTempDir();
    writeTestLicense(dir);
    await expect(startTestApp({}, dir)).rejects.toMatchObject({ event: 'license_invalid' });
  });

  it('ignores SERVICE_LICENSE_PUBLIC_KEY_FILE in production', async () => {
    const dir = makeTempDir();
    const env = writeTestLicense(dir);
    await expect(startTestApp({ ...env, NODE_ENV: 'production' }, dir)).rejects.toMatchObject({
      event: 'license_invalid',
      message: expect.stringContaining('does not trust'),
    });
  });

  it('never lets a clock rolled back extend a license, and reports the rollback', async () => {
    const dir = makeTempDir();
    const env = writeTestLicense(dir, { expiresAt: new Date(Date.now() + DAY_MS) });
    const first = await startTestApp(env, dir);
    expect(first.app.get(LicensingService).getStatus().status).toBe('active');
    await first.close(true);

    // The appliance once observed a time two days ahead: the wall clock now looks rolled back.
    const recorded = new Date(Date.now() + 2 * DAY_MS).toISOString();
    await executeOnStoppedStore(
      first.config,
      "update appliance_state set value = ? where key = 'license.latest_observed_time'",
      [recorded],
    );

    const second = await startTestApp(env, dir);
    try {
      const status = second.app.get(LicensingService).getStatus();
      expect(status.status).toBe('expired');
      expect(status.edition).toBe('community');
      expect(status.clockRollback).toEqual({ wallClock: expect.any(String), latestRecorded: recorded });
    } finally {
      await second.close();
    }
  });

  it('records the observed time at start', async () => {
    const t = await startTestApp();
    try {
      const [row] = await queryAppStore<{ value: string }>(
        t,
        "select value from appliance_state where key = 'license.latest_observed_time'",
      );
      expect(Math.abs(Date.parse(row.value) - Date.now())).toBeLessThan(60_000);
    } finally {
      await t.close();
    }
  });
});
