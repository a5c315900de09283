import { AppError } from '../../src/common/errors';
import { DevicesService } from '../../src/modules/devices/devices.service';
import { deviceHeaders, deviceId } from '../support/devices';
import { startTestApp, TestApp } from '../support/test-app';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}: ${error.message}`;
    throw error;
  }
  return 'ok';
}

describe('community device caps (no license) apply per organization', () => {
  let t: TestApp;
  let devices: DevicesService;
  beforeAll(async () => {
    t = await startTestApp();
    devices = t.app.get(DevicesService);
  });
  afterAll(async () => {
    await t.close();
  });

  it("lets no organization take another organization's device slots", async () => {
    const squatter = { orgId: 'org_squatter', keyId: 'key_s', isAdmin: true };
    for (const machine of ['s1', 's2', 's3']) {
      await devices.register(squatter, deviceHeaders(deviceId(machine)));
    }
    expect(await codeOf(devices.register(squatter, deviceHeaders(deviceId('s4'))))).toBe(
      '402 device_limit_reached: Your organization has reached the community edition device limit (max_devices): ' +
        'revoke a device first.',
    );
    expect(
      await codeOf(
        devices.bind(
          { keyId: 'key_s2', orgId: 'org_squatter', deviceLimit: 1 },
          { headers: deviceHeaders(deviceId('s5')) },
        ),
      ),
    ).toMatch(/^402 device_limit_reached/);

    const operator = { orgId: 'org_operator', keyId: 'key_o', isAdmin: true };
    await devices.register(operator, deviceHeaders(deviceId('o1')));
    await devices.register(operator, deviceHeaders(deviceId('o2')));
    const bound = await devices.bind(
      { keyId: 'key_o2', orgId: 'org_operator', deviceLimit: 1 },
      { headers: deviceHeaders(deviceId('o3')) },
    );
    expect(bound.deviceId).toBe(deviceId('o3'));
    expect((await devices.list('org_operator')).map((d) => d.deviceId).sort()).toEqual(
      ['o1', 'o2', 'o3'].map((m) => deviceId(m)).sort(),
    );
    expect(await codeOf(devices.register(operator, deviceHeaders(deviceId('o4'))))).toMatch(
      /^402 device_limit_reached/,
    );
  });

  it('counts a machine shared by two organizations once in each', async () => {
    const shared = deviceId('shared-machine');
    await devices.register({ orgId: 'org_x', keyId: 'key_x', isAdmin: true }, deviceHeaders(shared));
    const other = await devices.register(
      { orgId: 'org_y', keyId: 'key_y', isAdmin: true },
      deviceHeaders(shared),
    );
    expect(other.deviceId).toBe(shared);
  });
});
