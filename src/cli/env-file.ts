import { readFileSync } from 'node:fs';

/** No shell expansion, exactly as systemd reads it. */
export function parseEnvFile(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) continue;
    values.set(key, unquote(line.slice(eq + 1).trim()));
  }
  return values;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(["\\])/g, '$1');
  }
  return value;
}

/** Variables already set win, so under systemd nothing changes and an operator can override one setting per command. */
export function applyEnvFile(env: NodeJS.ProcessEnv): string | undefined {
  const file = env.DECISION_SERVICE_ENV_FILE;
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the settings file ${file}: ${(error as Error).message}`);
  }
  for (const [key, value] of parseEnvFile(text)) {
    if (env[key] === undefined) env[key] = value;
  }
  return file;
}
