import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { CliFailure, ExitCode } from './exit-codes';
import { readOptionalFile, writePrivateFileAtomically } from './private-file';

/** Never a key: keys live in the credential store or the environment only. */
export interface CliSettings {
  readonly base_url?: string;
  /** Which command put the stored key there: `logout` removes it only when `login` did. */
  readonly key_stored_by?: 'login' | 'set-key';
  /** `login` stored its key over one from `config set-key`, which waits in the store for `logout` to put back. */
  readonly set_key_kept?: boolean;
}

const FIELDS: ReadonlySet<string> = new Set(['base_url', 'key_stored_by', 'set_key_kept']);

export function cliConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'decisionctl', 'config.json');
}

function malformed(path: string, problem: string): CliFailure {
  return new CliFailure(
    `${path}: ${problem}. Fix the file or delete it (it holds only the base URL).`,
    ExitCode.configuration,
  );
}

export function readCliSettings(path = cliConfigPath()): CliSettings {
  let text: string | undefined;
  try {
    text = readOptionalFile(path);
  } catch (error) {
    throw malformed(path, `cannot be read (${(error as Error).message})`);
  }
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed(path, 'is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw malformed(path, 'is not a JSON object');
  const settings = parsed as Record<string, unknown>;
  for (const field of Object.keys(settings)) {
    if (!FIELDS.has(field)) throw malformed(path, `has an unknown setting "${field}"`);
  }
  if (settings.base_url !== undefined && typeof settings.base_url !== 'string')
    throw malformed(path, 'base_url must be a string');
  if (
    settings.key_stored_by !== undefined &&
    settings.key_stored_by !== 'login' &&
    settings.key_stored_by !== 'set-key'
  )
    throw malformed(path, 'key_stored_by must be "login" or "set-key"');
  if (settings.set_key_kept !== undefined && typeof settings.set_key_kept !== 'boolean')
    throw malformed(path, 'set_key_kept must be true or false');
  return settings;
}

export function writeCliSettings(settings: CliSettings, path = cliConfigPath()): void {
  const known: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = (settings as Record<string, unknown>)[field];
    if (value !== undefined) known[field] = value;
  }
  writePrivateFileAtomically(path, `${JSON.stringify(known, null, 2)}\n`);
}
