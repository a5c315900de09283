import { homedir } from 'node:os';
import { join } from 'node:path';

/** The per-user data directory of the SDK: $XDG_DATA_HOME (or ~/.local/share), ~/Library/Application Support, %APPDATA%. */
export function userDataDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (process.platform === 'win32')
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'decision-service');
  if (process.platform === 'darwin')
    return join(homedir(), 'Library', 'Application Support', 'decision-service');
  const xdg = env.XDG_DATA_HOME?.trim();
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.local', 'share'), 'decision-service');
}
