import { constants } from 'node:os';

/**
 * What a failure of the appliance's own storage means for the request or the work that met it — the one rule the
 * HTTP answer (toAppError) and the background loops follow, whether SQLite, PostgreSQL or Node's `fs` met it:
 * - `full`: the disk or the quota has no room (ENOSPC, EDQUOT, SQLite's SQLITE_FULL): 507 `insufficient_storage`;
 * - `unwritable`: the disk failed the write or will not take one — an I/O error (EIO, or SQLite's `SQLITE_IOERR`
 *   whatever the errno under it: EIO, EROFS of a file system remounted read-only, EPERM of an immutable file), a
 *   read-only file system (EROFS), a database SQLite may not write (`SQLITE_READONLY`): 503 `store_unavailable`;
 * - `unreachable`: the database cannot be reached right now (a PostgreSQL restart, a network cut, a full
 *   connection pool): 503 `store_unavailable`.
 * Nothing of it is the client's fault, and the request may be sent again as is: SQLite rolls the statement back and
 * the next one tries the disk again, a partial upload is removed, so nothing acknowledged is lost and writes resume
 * by themselves once the disk takes them. A busy SQLite database keeps its own handling. Drivers may wrap the error
 * in `cause`; the first five links are read, and `full` wins over the others.
 */
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

/** Whether the database (or the disk under it) cannot serve the request right now, and it may be retried as is. */
export function isStoreUnavailable(error: unknown): boolean {
  const fault = storeFaultOf(error);
  return fault === 'unwritable' || fault === 'unreachable';
}

export function isStorageExhausted(error: unknown): boolean {
  return storeFaultOf(error) === 'full';
}

const STORAGE_EXHAUSTED = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
/** Node's errnos (`fs`, streams) of a disk that failed a write or is read-only. */
const DISK_WRITE_FAILURES = new Set(['EIO', 'EROFS']);
/** node-sqlite3 names the primary code (`SQLITE_IOERR`), better-sqlite3 the extended one (`SQLITE_IOERR_WRITE`). */
const SQLITE_WRITE_FAILURE = /^SQLITE_(IOERR|READONLY)(_[A-Z_]+)?$/;

/**
 * A system call's errno as Node names it: libuv has no name for some (EDQUOT is "Unknown system error -122"), so
 * those are read from the number of an error that names its `syscall` (SQLite's `errno` is its own result code).
 */
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

/** How long a client is told to wait (`Retry-After`) before retrying a request the store could not serve. */
export const STORE_RETRY_AFTER_MS = 5000;

interface DriverError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
}

/** Socket-level failures to reach or keep the server (node:net, DNS). */
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

/**
 * PostgreSQL SQLSTATEs of a server going away or not accepting sessions: class 08 (connection exception),
 * 57P01 admin_shutdown (also `pg_terminate_backend`), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up
 * or shutting down), 53300 too_many_connections.
 */
const SERVER_GONE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * The words node-postgres and knex use, without a code, for a connection that died (knex puts the statement and
 * ` - ` before them); the last one is knex refusing further statements of a transaction whose connection was lost.
 */
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
