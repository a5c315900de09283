import { createHmac, randomBytes } from 'node:crypto';
import { hostname, platform, release } from 'node:os';
import { join } from 'node:path';
import { userDataDir } from './data-dir';
import { readPrivateFile, writePrivateFile } from './private-file';

/** What the device headers say about this machine. */
export interface DeviceIdentity {
  readonly deviceId: string;
  readonly platform: string;
  readonly platformVersion: string;
  readonly hostnameHash: string;
}

const MACHINE_ID_FILES = ['/etc/machine-id', '/var/lib/dbus/machine-id'];

/**
 * The machine's identity secret: the OS machine id, or else a random id made once and kept (0600) in the
 * user's data directory. It never leaves the machine: only application-specific HMACs of it are sent.
 */
export function readMachineId(fallbackPath = join(userDataDir(), 'machine-id')): string {
  for (const path of MACHINE_ID_FILES) {
    const id = readQuietly(path)?.trim();
    if (id) return id;
  }
  const kept = readPrivateFile(fallbackPath)?.trim();
  if (kept) return kept;
  const made = randomBytes(16).toString('hex');
  writePrivateFile(fallbackPath, `${made}\n`);
  return made;
}

function readQuietly(path: string): string | undefined {
  try {
    return readPrivateFile(path);
  } catch {
    return undefined;
  }
}

function appSpecific(machineId: string, purpose: string): string {
  return createHmac('sha256', machineId).update(`decision-service-sdk/${purpose}`).digest('hex');
}

/** The stable per-machine device id (40 hex characters); the same for every client on this machine. */
export function deriveDeviceId(machineId: string): string {
  return appSpecific(machineId, 'device-id/v1').slice(0, 40);
}

export function deviceIdentity(machineId: string, pinnedDeviceId: string | undefined): DeviceIdentity {
  return {
    deviceId: pinnedDeviceId ?? deriveDeviceId(machineId),
    platform: platform(),
    platformVersion: release(),
    hostnameHash: appSpecific(machineId, `hostname/v1\n${hostname()}`),
  };
}

export function deviceHeaders(identity: DeviceIdentity): Record<string, string> {
  return {
    'X-Service-Device-Id': identity.deviceId,
    'X-Service-Platform': identity.platform,
    'X-Service-Platform-Version': identity.platformVersion,
    'X-Service-Hostname-Hash': identity.hostnameHash,
  };
}
