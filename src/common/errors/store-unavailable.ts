/**
 * Whether an error means the database cannot be reached right now — a PostgreSQL restart, a network cut, a full
 * connection pool — or, for the SQLite file, cannot be written (isStoreWriteFailure), as opposed to a fault of the
 * request or of the code. Such a request may be retried as is. A busy SQLite database keeps its own handling.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return someInChain(error, (e) => isUnreachable(e) || isSqliteWriteFailure(e));
}

/**
 * Whether SQLite could not write its file: an I/O error (`SQLITE_IOERR`, whatever the errno under it: EIO, EROFS
 * of a file system remounted read-only, EPERM of an immutable file) or a database it may not write
 * (`SQLITE_READONLY`). A full disk is `SQLITE_FULL`, answered 507 instead. SQLite rolls the statement or
 * transaction back and the next one tries the disk again, so nothing is lost that was acknowledged, and writes
 * resume by themselves once the disk takes them.
 */
export function isStoreWriteFailure(error: unknown): boolean {
  return someInChain(error, isSqliteWriteFailure);
}

function someInChain(error: unknown, test: (error: DriverError) => boolean): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (test(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** node-sqlite3 names the primary code (`SQLITE_IOERR`), better-sqlite3 the extended one (`SQLITE_IOERR_WRITE`). */
const SQLITE_WRITE_FAILURE = /^SQLITE_(IOERR|READONLY)(_[A-Z_]+)?$/;

function isSqliteWriteFailure(error: DriverError): boolean {
  return typeof error.code === 'string' && SQLITE_WRITE_FAILURE.test(error.code);
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
