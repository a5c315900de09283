import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnDaemon, waitForStart } from '../support/daemon-process';
import { armor, licensePayload, signParts, writeTestLicense } from '../support/licenses';
import { makeTempDir } from '../support/test-app';

function events(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function tamperedLicense(): string {
  const { envelope } = signParts(licensePayload({ caps: { max_devices: 5, max_devices_per_key: 1 } }));
  const forged = licensePayload({ caps: { max_devices: 5000, max_devices_per_key: 1000 } });
  return armor({ ...envelope, enc: Buffer.from(JSON.stringify(forged)).toString('base64url') });
}

describe('the built daemon and its license', () => {
  it.each([
    ['a tampered license (more devices than signed)', 'license_invalid', () => tamperedLicense()],
    ['garbage', 'license_invalid', () => 'this is not a license\n'],
    [
      'a v1 license',
      'license_format_retired',
      () => armor({ ...signParts(licensePayload()).envelope, v: 1 }),
    ],
  ])(
    'refuses to start on %s: exit != 0 and log event %s',
    async (_name, event, content) => {
      const dataDir = makeTempDir();
      const env = writeTestLicense(dataDir);
      const file = join(dataDir, 'license.lic');
      writeFileSync(file, content());
      const daemon = spawnDaemon({ ...env, SERVICE_PORT: '0', SERVICE_DATA_DIR: dataDir });
      const code = await daemon.exited;
      expect(code).not.toBe(0);
      expect(events(daemon.output())).toContainEqual(
        expect.objectContaining({ level: 'fatal', event, file: env.SERVICE_LICENSE_FILE }),
      );
      expect(daemon.output()).not.toContain('"event":"daemon_started"');
    },
    120_000,
  );

  it('starts with a valid license, logs license_loaded and the development key warning', async () => {
    const dataDir = makeTempDir();
    const env = writeTestLicense(dataDir, { licensee: 'Spawned Corp' });
    const daemon = spawnDaemon({ ...env, SERVICE_PORT: '0', SERVICE_DATA_DIR: dataDir });
    await waitForStart(daemon, 90_000);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    const lines = events(daemon.output());
    expect(lines).toContainEqual(
      expect.objectContaining({ event: 'license_loaded', licensee: 'Spawned Corp' }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ event: 'license_dev_key_trusted', level: 'warn' }),
    );
  });
});
