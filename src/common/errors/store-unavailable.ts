import { constants } from 'node:os';

// `full` answers 507, the others 503: not the client's fault, and the request may be sent again as is. Drivers wrap
// the error in `cause`: the first five links are read, and `full` wins.
export type StoreFault = 'full' | 'unwritable' | 'unreachable';

export function storeFaultOf(error: unknown): StoreFault | undefined {
  const found = new Set<StoreFault | undefined>();
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    found.add(faultOf(current));
    current = (current as { cause?: unknown }).cause;
  }
  return FAULTS_FIRST_TO_LAST.find((fault) => found.has(fault));
}

const FAULTS_FIRST_TO_LAST: readonly StoreFault[] = ['full', 'unwritable', 'unreachable'];

export function isStoreUnavailable(error: unknown): boolean {
  const fault = storeFaultOf(error);
  return fault === 'unwritable' || fault === 'unreachable';
}

export function isStorageExhausted(error: unknown): boolean {
  return storeFaultOf(error) === 'full';
}

const STORAGE_EXHAUSTED = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const DISK_WRITE_FAILURES = new Set(['EIO', 'EROFS']);
/** The primary code (`SQLITE_IOERR`) or an extended one (`SQLITE_IOERR_WRITE`). */
const SQLITE_WRITE_FAILURE = /^SQLITE_(IOERR|READONLY)(_[A-Z_]+)?$/;

/** libuv has no name for some errnos (EDQUOT), so those are read from the number. */
function errnoCodeOf(error: DriverError): unknown {
  const { errno, syscall } = error as { errno?: unknown; syscall?: unknown };
  if (typeof syscall === 'string' && typeof errno === 'number' && errno === -constants.errno.EDQUOT)
    return 'EDQUOT';
  return error.code;
}

function faultOf(error: DriverError): StoreFault | undefined {
  const code = errnoCodeOf(error);
  if (typeof code === 'string') {
    if (STORAGE_EXHAUSTED.has(code)) return 'full';
    if (DISK_WRITE_FAILURES.has(code) || SQLITE_WRITE_FAILURE.test(code)) return 'unwritable';
  }
  return isUnreachable(error) ? 'unreachable' : undefined;
}

export const STORE_RETRY_AFTER_MS = 5000;

interface DriverError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

const SERVER_GONE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** knex's words, without a code, for a connection that died. */
const CLIENT_GONE_MESSAGES = [
  'Connection terminated',
  'Connection ended unexpectedly',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Transaction query already complete',
];

function saysConnectionGone(message: string): boolean {
  return CLIENT_GONE_MESSAGES.some((words) => message.startsWith(words) || message.includes(` - ${words}`));
}

function isUnreachable(error: DriverError): boolean {
  if (error.name === 'KnexTimeoutError') return true;
  const { code, message } = error;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SERVER_GONE_STATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return typeof message === 'string' && saysConnectionGone(message);
}
