import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { CliFailure, ExitCode } from './exit-codes';

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('give a whole number (0 or more)');
  return n;
}

export function timestamp(value: string): string {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('give an ISO 8601 timestamp');
  return new Date(value).toISOString();
}

export function readJsonObject(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new CliFailure(`cannot read ${path}: ${(error as Error).message}`, ExitCode.usage);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliFailure(`${path} is not valid JSON: ${(error as Error).message}`, ExitCode.usage);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliFailure(`${path} must hold a JSON object`, ExitCode.usage);
  return parsed as Record<string, unknown>;
}

/** Repeatable `--set name=value`; values that parse as JSON (numbers, true, objects) are taken as such. */
export function collectSetting(
  entry: string,
  previous: Record<string, unknown> = {},
): Record<string, unknown> {
  const at = entry.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('give name=value');
  const raw = entry.slice(at + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a plain string
  }
  return { ...previous, [entry.slice(0, at)]: value };
}
