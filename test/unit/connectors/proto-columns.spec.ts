import {
  CollisionLog,
  FormatOptions,
  getPath,
  readFileRecords,
} from '../../../src/modules/connectors/formats';

async function records(text: string, options: FormatOptions): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  const source = { kind: 'bytes' as const, bytes: Buffer.from(text, 'utf8') };
  for await (const batch of readFileRecords(source, options, 10, new CollisionLog())) out.push(...batch);
  return out;
}

function entries(record: Record<string, unknown>): [string, unknown][] {
  const keys: string[] = [];
  // for..in, as the dataset writer walks a record: inherited keys would show up here.
  for (const key in record) keys.push(key);
  return keys.map((key) => [key, record[key]]);
}

describe('column names with prototype meaning', () => {
  it('a CSV __proto__ column is read like any other', async () => {
    const rows = await records('id,__proto__,constructor\n1,x,y\n2,,z\n', { fileType: 'csv' });
    expect(rows.map(entries)).toEqual([
      [
        ['id', '1'],
        ['__proto__', 'x'],
        ['constructor', 'y'],
      ],
      [
        ['id', '2'],
        ['__proto__', null],
        ['constructor', 'z'],
      ],
    ]);
  });

  it('a JSON __proto__ key is a column and injects nothing', async () => {
    const rows = await records(
      '[{"id": 1, "__proto__": ["a", "b"]}, {"id": 2, "__proto__": {"polluted": true}}, {"id": 3, "__proto__": 7}]',
      { fileType: 'json' },
    );
    expect(rows.map(entries)).toEqual([
      [
        ['id', 1],
        ['__proto__', ['a', 'b']],
      ],
      [
        ['id', 2],
        ['__proto__.polluted', true],
      ],
      [
        ['id', 3],
        ['__proto__', 7],
      ],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a json_path does not walk into the prototype', () => {
    expect(getPath({ data: [] }, '__proto__.constructor')).toBeUndefined();
    expect(getPath(JSON.parse('{"__proto__": {"rows": [1]}}'), '__proto__.rows')).toEqual([1]);
  });
});
