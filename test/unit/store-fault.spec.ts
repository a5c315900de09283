import { writeFileSync } from 'node:fs';
import { isStorageExhausted, isStoreUnavailable, toAppError } from '../../src/common/errors';

/** An error shaped as Node's fs raises it (`code`, `errno`, `syscall`, and a message naming the path). */
function fsError(code: string, errno: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, write '/var/lib/service/imports/x.partial'`), {
    code,
    errno: -errno,
    syscall: 'write',
    path: '/var/lib/service/imports/x.partial',
  });
}

/** The one rule for storage faults (src/common/errors/store-unavailable.ts), whoever met them. */
describe('storage faults', () => {
  it('answers a disk that failed or refused a write 503 store_unavailable with Retry-After, without its words', () => {
    for (const error of [
      fsError('EIO', 5),
      fsError('EROFS', 30),
      Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }),
      Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }),
    ]) {
      const answer = toAppError(error);
      expect([answer.status, answer.code, answer.headers]).toEqual([
        503,
        'store_unavailable',
        { 'retry-after': '5' },
      ]);
      expect(answer.message).not.toMatch(/EIO|EROFS|SQLITE|\/var/);
      expect([isStoreUnavailable(error), isStorageExhausted(error)]).toEqual([true, false]);
    }
  });

  it('answers a full disk or quota 507 insufficient_storage, also when a driver wrapped it in cause', () => {
    let real: unknown;
    try {
      writeFileSync('/dev/full', 'x');
    } catch (error) {
      real = error;
    }
    for (const error of [
      real ?? fsError('ENOSPC', 28),
      fsError('EDQUOT', 122),
      // What Node raises for it: libuv has no name for EDQUOT.
      Object.assign(fsError('EDQUOT', 122), { code: 'Unknown system error -122' }),
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      new Error('the upload failed', { cause: fsError('ENOSPC', 28) }),
    ]) {
      const answer = toAppError(error);
      expect([answer.status, answer.code, answer.headers]).toEqual([507, 'insufficient_storage', undefined]);
      expect([isStoreUnavailable(error), isStorageExhausted(error)]).toEqual([false, true]);
    }
  });

  it('takes a full disk over an I/O error in the same chain, and leaves other errnos to internal_error', () => {
    const both = Object.assign(new Error('disk I/O error'), {
      code: 'SQLITE_IOERR',
      cause: fsError('ENOSPC', 28),
    });
    expect(toAppError(both).code).toBe('insufficient_storage');
    for (const code of ['ENOENT', 'EACCES', 'EBADF']) {
      expect([code, toAppError(fsError(code, 1)).code]).toEqual([code, 'internal_error']);
    }
  });
});
