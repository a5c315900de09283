import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Not `instanceof Error`: errors from node:fs may come from another realm (jest's sandbox). */
function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return typeof error === 'object' && error !== null && 'code' in error;
}

/** Created with an exclusive open, so two processes starting together agree on one value. */
export function loadOrCreateSecretFile(path: string, bytes = 32): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, `${randomBytes(bytes).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!isErrnoException(error) || error.code !== 'EEXIST') throw error;
  }
  chmodSync(path, 0o600);
  const value = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (value.length < 16) throw new Error(`The secret file ${path} is empty or too short.`);
  return value;
}
