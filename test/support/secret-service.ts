import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the session bus the keyring daemon serves on. */
  readonly env: Record<string, string>;
  stop(): void;
}

/** Whether this machine has what a real Secret Service needs (Debian: gnome-keyring, dbus; .ci/run installs them). */
export function secretServiceAvailable(): boolean {
  return ['dbus-run-session', 'gnome-keyring-daemon'].every(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0,
  );
}

/**
 * A real Secret Service like a desktop session's: a private session bus (dbus-run-session) with
 * gnome-keyring-daemon, its `login` keyring created and unlocked with a password. That keyring carries the
 * `default` alias the keyring library asks for (with an empty password gnome-keyring makes no login keyring,
 * and the library then finds no collection). The keyring files land in `env.XDG_DATA_HOME/keyrings`, encrypted.
 */
export async function startSecretService(env: Record<string, string>): Promise<SecretService> {
  const script = [
    "printf 'test-login-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null",
    'echo "$DBUS_SESSION_BUS_ADDRESS"',
    'exec sleep 3600',
  ].join('\n');
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) =>
      reject(new Error(`dbus-run-session exited (${code}) before the bus was up`)),
    );
  });
  const busEnv = { DBUS_SESSION_BUS_ADDRESS: address };
  // The daemon registers its name on the bus shortly after --unlock returns: wait until it answers.
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = spawnSync(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.secrets',
        '/org/freedesktop/secrets',
        'org.freedesktop.Secret.Service.ReadAlias',
        'string:default',
      ],
      { env: { PATH: process.env.PATH ?? '', ...env, ...busEnv }, encoding: 'utf8' },
    );
    if (probe.status === 0 && probe.stdout.includes('/collection/login')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    env: busEnv,
    stop: () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    },
  };
}
