import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ColumnProfile } from '../../src/modules/datasets/column-profile';
import { ValueClassifier } from '../../src/modules/datasets/value-kinds';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const BATCHES = 1500;
const BATCH_CHARS = 54_000;

/** A batch's text and one 20-character cell cut from it, as the CSV reader hands cells over. */
function cellOfFreshBatch(batch: number): string {
  const text = `${String(batch).padStart(20, '0')}${'x'.repeat(BATCH_CHARS - 20)}`;
  return text.slice(0, 20);
}

function heapHeldAfter(fill: (profile: ColumnProfile) => void): number {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const profile = new ColumnProfile('code', new ValueClassifier());
  fill(profile);
  collectGarbage();
  const held = process.memoryUsage().heapUsed - before;
  expect(profile.toSchema(BATCHES).distinctCount).toBe(BATCHES);
  return held;
}

describe('column profiling keeps its own copies of text values', () => {
  it('holds 1,500 distinct cells without holding the 54 kB batches they were cut from', () => {
    const held = heapHeldAfter((profile) => {
      for (let batch = 0; batch < BATCHES; batch++) profile.observe(cellOfFreshBatch(batch));
    });
    // The batches alone would be 1,500 × 54,000 one-byte characters, about 81 MB.
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });
});
