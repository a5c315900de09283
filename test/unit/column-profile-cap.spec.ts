import { ColumnProfile, ColumnSchema, cutText } from '../../src/modules/datasets/column-profile';
import { queryHints } from '../../src/modules/datasets/query-hints';
import { ValueClassifier } from '../../src/modules/datasets/value-kinds';

const KIB = 1024;

function profileOf(values: readonly string[]): ColumnSchema {
  const profile = new ColumnProfile('note', new ValueClassifier());
  for (const value of values) profile.observe(value);
  return profile.toSchema(values.length);
}

function utf8Bytes(value: unknown): number {
  return Buffer.byteLength(String(value), 'utf8');
}

describe('the column profile keeps each value to 1 KiB', () => {
  it('cuts a 100 KiB cell in min, max, samples and query hints, and marks the column', () => {
    // 'é' is 2 bytes: an odd byte limit would split one if the cut ignored character boundaries.
    const huge = `z${'é'.repeat(50 * KIB)}`;
    const schema = profileOf(['alpha', huge, 'beta']);
    expect(utf8Bytes(huge)).toBeGreaterThan(100 * KIB);
    expect(schema.max).toBe(`z${'é'.repeat(511)}`);
    expect(utf8Bytes(schema.max)).toBe(1023);
    expect(schema.min).toBe('alpha');
    expect(schema.sampleValues).toEqual(['alpha', `z${'é'.repeat(511)}`, 'beta']);
    expect(schema.valuesCut).toBe(true);
    const hints = queryHints([{ ...schema, role: 'dimension' }]);
    expect(Math.max(...hints.map(utf8Bytes))).toBeLessThanOrEqual(KIB);
  });

  it('leaves a column of ordinary cells whole and unmarked', () => {
    const schema = profileOf(['alpha', 'beta', 'x'.repeat(KIB)]);
    expect([schema.min, schema.max, schema.valuesCut]).toEqual(['alpha', 'x'.repeat(KIB), false]);
    expect(schema.sampleValues).toEqual(['alpha', 'beta', 'x'.repeat(KIB)]);
  });

  it('finds the true bounds among long values sharing their first kilobyte', () => {
    const prefix = 'p'.repeat(2 * KIB);
    const schema = profileOf([`${prefix}b`, `${prefix}c`, 'p'.repeat(KIB), `${prefix}a`]);
    expect([schema.min, schema.max, schema.valuesCut]).toEqual(['p'.repeat(KIB), 'p'.repeat(KIB), true]);
  });

  it('cuts text between characters, never inside one', () => {
    expect(cutText('😀'.repeat(300))).toEqual({ text: '😀'.repeat(256), cut: true });
    expect(cutText(`a${'😀'.repeat(300)}`)).toEqual({ text: `a${'😀'.repeat(255)}`, cut: true });
    expect(cutText('short')).toEqual({ text: 'short', cut: false });
  });
});
