import { ResultCache } from '../../src/modules/query/result-cache';

describe('query result cache', () => {
  it('keys on dataset, SQL and parameters', () => {
    const cache = new ResultCache();
    cache.set(ResultCache.key('ds_1', 'select 1', [1]), [{ a: 1 }]);
    expect(cache.get(ResultCache.key('ds_1', 'select 1', [1]))).toEqual([{ a: 1 }]);
    expect(cache.get(ResultCache.key('ds_2', 'select 1', [1]))).toBeUndefined();
    expect(cache.get(ResultCache.key('ds_1', 'select 1', [2]))).toBeUndefined();
  });

  it('evicts the least recently used entries beyond its row budget and skips huge results', () => {
    const cache = new ResultCache();
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ i }));
    for (let n = 0; n < 25; n++) cache.set(`k${n}`, rows);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k24')).toBe(rows);
    cache.set(
      'huge',
      Array.from({ length: 10_002 }, () => ({})),
    );
    expect(cache.get('huge')).toBeUndefined();
  });
});
