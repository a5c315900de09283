import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the session bus the keyring daemon serves on. */
  readonly env: Record<string, string>;
  /** Locks the `login` collection, as a screen lock or an idle timeout does on a desktop. */
  lock(): void;
  /** Stops the keyring daemon's process (SIGSTOP): its bus name stays owned, but no call is ever answered. */
  freeze(): void;
  /** Lets a frozen daemon run again. */
  thaw(): void;
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
  const busCall = (args: readonly string[]): string => {
    const result = spawnSync('dbus-send', ['--session', '--print-reply', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env, ...busEnv },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`dbus-send ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  const daemonPid = (): number => {
    const reply = busCall([
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.GetConnectionUnixProcessID',
      'string:org.freedesktop.secrets',
    ]);
    const pid = Number(/uint32 (\d+)/.exec(reply)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no keyring daemon pid in: ${reply}`);
    return pid;
  };
  // The daemon registers its name on the bus shortly after --unlock returns (seconds on a loaded machine): wait
  // until it answers, and say so when it never does rather than letting the first test fail on a missing name.
  const readyBy = Date.now() + 60_000;
  for (;;) {
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
    if (Date.now() > readyBy) {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      throw new Error(`the keyring daemon did not serve a login collection within 60 s: ${probe.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  let frozenPid: number | undefined;
  return {
    env: busEnv,
    lock: () => {
      busCall([
        '--dest=org.freedesktop.secrets',
        '/org/freedesktop/secrets',
        'org.freedesktop.Secret.Service.Lock',
        'array:objpath:/org/freedesktop/secrets/collection/login',
      ]);
    },
    freeze: () => {
      frozenPid = daemonPid();
      process.kill(frozenPid, 'SIGSTOP');
    },
    thaw: () => {
      if (frozenPid !== undefined) process.kill(frozenPid, 'SIGCONT');
      frozenPid = undefined;
    },
    stop: () => {
      if (frozenPid !== undefined) process.kill(frozenPid, 'SIGCONT');
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    },
  };
}
