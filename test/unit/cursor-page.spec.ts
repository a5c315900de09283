import { decodeCursor, encodeCursor, pageOf, rowsToFetch } from '../../src/common/http/cursor-page';
import { AppError } from '../../src/common/errors';

describe('cursor paging', () => {
  const rows = ['a', 'b', 'c', 'd'];

  it('names the last item of a page when more follow, and nothing on the last page', () => {
    expect(rowsToFetch(3)).toBe(4);
    expect(pageOf(rows, 3, (last) => `after-${last}`)).toEqual({
      items: ['a', 'b', 'c'],
      nextCursor: 'after-c',
    });
    expect(pageOf(rows, 4, (last) => `after-${last}`)).toEqual({ items: rows, nextCursor: null });
    expect(pageOf([], 4, (last: string) => last)).toEqual({ items: [], nextCursor: null });
  });

  it('round-trips a composite cursor and refuses one it did not make', () => {
    const cursor = encodeCursor(['2026-11-26T12:00:00.000Z', 'con_1']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 2)).toEqual(['2026-11-26T12:00:00.000Z', 'con_1']);
    for (const bad of ['abc', encodeCursor(['only-one']), Buffer.from('[1,2]').toString('base64url'), '']) {
      expect(() => decodeCursor(bad, 2)).toThrow(AppError);
      try {
        decodeCursor(bad, 2);
      } catch (error) {
        expect((error as AppError).details).toEqual([
          { field: 'cursor', problem: 'is not a cursor returned by this list' },
        ]);
      }
    }
  });
});
