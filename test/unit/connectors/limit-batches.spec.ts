import { limitBatches } from '../../../src/modules/connectors/connector-driver';
import { RowBatch } from '../../../src/modules/connectors/formats/records';

async function collect<B>(source: AsyncIterable<B>): Promise<B[]> {
  const out: B[] = [];
  for await (const batch of source) out.push(batch);
  return out;
}

/** limitBatches stops the source at `limit` rows, records or text tables alike. */
describe('limitBatches', () => {
  it('cuts record batches at the limit and stops reading', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<Record<string, unknown>[]> {
      for (let b = 0; b < 5; b++) {
        pulled++;
        yield [{ n: 2 * b }, { n: 2 * b + 1 }];
      }
    }
    expect(await collect(limitBatches(source(), 3))).toEqual([[{ n: 0 }, { n: 1 }], [{ n: 2 }]]);
    expect(pulled).toBe(2);
    expect(await collect(limitBatches(source(), 0))).toEqual([]);
    expect((await collect(limitBatches(source(), undefined))).flat()).toHaveLength(10);
  });

  it('cuts a text table to its first rows, text and cell ends with them', async () => {
    async function* source(): AsyncGenerator<RowBatch> {
      yield {
        columns: ['a', 'b'],
        rows: 3,
        text: 'x1y1x2y2x3y3',
        ends: Uint32Array.from([2, 4, 6, 8, 10, 12]),
      };
    }
    expect(await collect(limitBatches(source(), 2))).toEqual([
      { columns: ['a', 'b'], rows: 2, text: 'x1y1x2y2', ends: Uint32Array.from([2, 4, 6, 8]) },
    ]);
  });
});
