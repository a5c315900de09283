import ExcelJS from 'exceljs';
import {
  CollisionLog,
  contentBytes,
  describeFile,
  FormatOptions,
  readFileBatches,
  readFileRecords,
} from '../../../src/modules/connectors/formats';
import { looksLikeHeader, readCsv } from '../../../src/modules/connectors/formats/csv';
import { flattenRecord, isTextTable } from '../../../src/modules/connectors/formats/records';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';

async function records(
  bytes: Uint8Array | string,
  options: FormatOptions,
): Promise<Record<string, unknown>[]> {
  const source = {
    kind: 'bytes' as const,
    bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes,
  };
  const out: Record<string, unknown>[] = [];
  for await (const batch of readFileRecords(source, options, 2, new CollisionLog())) out.push(...batch);
  return out;
}

describe('file formats', () => {
  describe('csv', () => {
    it('sniffs the delimiter and the header; empty cells are null', async () => {
      expect(await records('a;b;c\n1;2;\n4;5;6\n', { fileType: 'csv' })).toEqual([
        { a: '1', b: '2', c: null },
        { a: '4', b: '5', c: '6' },
      ]);
    });

    it('reads tsv with a tab delimiter and quoted fields', async () => {
      expect(await records('name\tnote\n"Smith, J"\t"says ""hi"""\n', { fileType: 'tsv' })).toEqual([
        { name: 'Smith, J', note: 'says "hi"' },
      ]);
    });

    it('detects a headerless numeric file', async () => {
      expect(await records('1,2\n3,4\n', { fileType: 'csv' })).toEqual([
        { column_1: '1', column_2: '2' },
        { column_1: '3', column_2: '4' },
      ]);
      expect(
        looksLikeHeader([
          ['id', 'amount'],
          ['1', '2.5'],
          ['2', '3'],
        ]),
      ).toBe(true);
      expect(
        looksLikeHeader([
          ['1', '2.5'],
          ['2', '3'],
        ]),
      ).toBe(false);
    });

    it('honours an explicit delimiter and has_header', async () => {
      expect(await records('a|b\nx|y\n', { fileType: 'csv', delimiter: '|', hasHeader: false })).toEqual([
        { column_1: 'a', column_2: 'b' },
        { column_1: 'x', column_2: 'y' },
      ]);
    });

    it('strips a UTF-8 BOM, decodes UTF-16 with a BOM and falls back to windows-1252', async () => {
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('name,city\nZoë,Köln\n')]);
      expect(await records(bom, { fileType: 'csv' })).toEqual([{ name: 'Zoë', city: 'Köln' }]);
      const utf16 = Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from('name,city\nZoë,Köln\n', 'utf16le'),
      ]);
      expect(await records(utf16, { fileType: 'csv' })).toEqual([{ name: 'Zoë', city: 'Köln' }]);
      const latin = Buffer.from('name,city\nZo\xeb,K\xf6ln\n', 'latin1');
      expect(await records(latin, { fileType: 'csv' })).toEqual([{ name: 'Zoë', city: 'Köln' }]);
    });

    it('names blank and duplicate headers', async () => {
      expect(await records('a,,a\n1,2,3\n', { fileType: 'csv' })).toEqual([
        { a: '1', column_2: '2', a_2: '3' },
      ]);
    });

    it('gives text tables that hold the same rows as the records', async () => {
      const text = 'id,name,id\n1,"Smith, J",10\n\n2,,20,extra\n3\n4,"says ""hi""",40\n';
      const source = { kind: 'bytes' as const, bytes: Buffer.from(text, 'utf8') };
      const tables: { columns: readonly string[]; rows: (string | null)[][] }[] = [];
      for await (const batch of readFileBatches(
        source,
        { fileType: 'csv', textTables: true },
        2,
        new CollisionLog(),
      )) {
        if (!isTextTable(batch)) throw new Error('expected a text table');
        const width = batch.columns.length;
        const rows: (string | null)[][] = [];
        for (let r = 0; r < batch.rows; r++) {
          rows.push(
            batch.columns.map((_, c) => {
              const at = r * width + c;
              const start = at === 0 ? 0 : batch.ends[at - 1];
              return batch.ends[at] > start ? batch.text.slice(start, batch.ends[at]) : null;
            }),
          );
        }
        tables.push({ columns: batch.columns, rows });
      }
      expect(tables).toEqual([
        { columns: ['id', 'name', 'id_2'], rows: [['1', 'Smith, J', '10']] },
        {
          columns: ['id', 'name', 'id_2', 'column_4'],
          rows: [
            ['2', null, '20', 'extra'],
            ['3', null, null, null],
          ],
        },
        { columns: ['id', 'name', 'id_2', 'column_4'], rows: [['4', 'says "hi"', '40', null]] },
      ]);
      expect(await records(text, { fileType: 'csv' })).toEqual([
        { id: '1', name: 'Smith, J', id_2: '10' },
        { id: '2', name: null, id_2: '20', column_4: 'extra' },
        { id: '3', name: null, id_2: null, column_4: null },
        { id: '4', name: 'says "hi"', id_2: '40', column_4: null },
      ]);
    });

    it('reads no further ahead of a slow reader than a few chunks', async () => {
      const CHUNKS = 300;
      const ROWS_PER_CHUNK = 1000;
      let pulled = 0;
      async function* source(): AsyncGenerator<string> {
        yield 'id,v\n';
        for (let chunk = 0; chunk < CHUNKS; chunk++) {
          pulled++;
          const first = chunk * ROWS_PER_CHUNK;
          yield Array.from({ length: ROWS_PER_CHUNK }, (_, i) => `${first + i},x\n`).join('');
        }
      }
      const batches = readCsv(source(), { batchSize: 1000, textTables: true });
      const first = await batches.next();
      expect(first.done).toBe(false);
      // Let the source run as far as it will while nobody reads: until it has stopped asking for chunks.
      for (let quiet = 0, seen = -1; quiet < 20;) {
        await new Promise((resolve) => setImmediate(resolve));
        quiet = pulled === seen ? quiet + 1 : 0;
        seen = pulled;
      }
      expect(pulled).toBeLessThan(40);
      let rows = !first.done && isTextTable(first.value) ? first.value.rows : 0;
      for await (const batch of batches) rows += isTextTable(batch) ? batch.rows : batch.length;
      expect(rows).toBe(CHUNKS * ROWS_PER_CHUNK);
      expect(pulled).toBe(CHUNKS);
    });

    it('streams many rows in batches in file order', async () => {
      const text = ['id,v', ...Array.from({ length: 5000 }, (_, i) => `${i},${i * 2}`)].join('\n');
      const rows = await records(text, { fileType: 'csv' });
      expect(rows).toHaveLength(5000);
      expect(rows[4999]).toEqual({ id: '4999', v: '9998' });
    });
  });

  describe('json', () => {
    it('reads a top-level array and flattens nested objects', async () => {
      expect(await records('[{"a":1,"b":{"c":2,"d":{"e":3}},"tags":["x"]}]', { fileType: 'json' })).toEqual([
        { a: 1, 'b.c': 2, 'b.d.e': 3, tags: ['x'] },
      ]);
    });

    it.each(['data', 'records', 'rows', 'results', 'items', 'value'])(
      'finds records under the wrapper key %s',
      async (key) => {
        expect(await records(JSON.stringify({ meta: 1, [key]: [{ id: 1 }] }), { fileType: 'json' })).toEqual([
          { id: 1 },
        ]);
      },
    );

    it('follows json_path', async () => {
      expect(
        await records('{"results":{"items":[{"id":7}]}}', { fileType: 'json', jsonPath: 'results.items' }),
      ).toEqual([{ id: 7 }]);
    });

    it('reports invalid JSON and a json_path that reaches no array as invalid_payload', async () => {
      expect((await connectorFailure(records('{"a":', { fileType: 'json' }))).errorType).toBe(
        'invalid_payload',
      );
      const error = await connectorFailure(records('{"a":{"b":1}}', { fileType: 'json', jsonPath: 'a.b' }));
      expect(error.errorType).toBe('invalid_payload');
      expect(error.message).toContain('Invalid JSON');
    });

    it('refuses JSON nested deeper than the limit as invalid_payload, not a stack overflow', async () => {
      for (const deep of [
        '['.repeat(20_000) + ']'.repeat(20_000),
        '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
      ]) {
        const error = await connectorFailure(records(deep, { fileType: 'json' }));
        expect(error.errorType).toBe('invalid_payload');
        expect(error.message).toMatch(/deeper than 512 levels/);
      }
      expect(
        await records(`[{"a":${'['.repeat(500)}${']'.repeat(500)}}]`, { fileType: 'json' }),
      ).toHaveLength(1);
    });

    it('reads JSON Lines', async () => {
      expect(await records('{"a":1}\n{"a":2}\n', { fileType: 'json' })).toEqual([{ a: 1 }, { a: 2 }]);
    });

    it('reports flattening collisions and keeps the first value', async () => {
      expect(flattenRecord({ 'a.b': 1, a: { b: 2 } })).toEqual({ record: { 'a.b': 1 }, collisions: ['a.b'] });
      const description = await describeFile(
        { kind: 'bytes', bytes: Buffer.from('[{"a.b":1,"a":{"b":2}}]') },
        { fileType: 'json' },
      );
      expect(description.warnings[0]).toContain('a.b');
    });
  });

  describe('excel', () => {
    async function workbook(): Promise<Buffer> {
      const book = new ExcelJS.Workbook();
      const first = book.addWorksheet('Summary');
      first.addRow(['k', 'v']);
      first.addRow(['x', 1]);
      const second = book.addWorksheet('Data');
      second.addRow(['id', 'when', 'total', 'label']);
      second.addRow([
        1,
        new Date(Date.UTC(2024, 0, 2)),
        { formula: 'A2*2', result: 2 },
        { richText: [{ text: 'he' }, { text: 'llo' }] },
      ]);
      second.addRow([2, null, 4.5, 'plain']);
      return Buffer.from(await book.xlsx.writeBuffer());
    }

    it('reads the first sheet by default, by name, or by 0-based index', async () => {
      const bytes = await workbook();
      expect(await records(bytes, { fileType: 'excel' })).toEqual([{ k: 'x', v: 1 }]);
      const data = [
        { id: 1, when: '2024-01-02T00:00:00.000Z', total: 2, label: 'hello' },
        { id: 2, when: null, total: 4.5, label: 'plain' },
      ];
      expect(await records(bytes, { fileType: 'excel', sheet: 'Data' })).toEqual(data);
      expect(await records(bytes, { fileType: 'excel', sheet: 1 })).toEqual(data);
    });

    it('describes the sheet read and lists every sheet, loading the workbook once', async () => {
      const told: (readonly string[])[] = [];
      const description = await describeFile(
        { kind: 'bytes', bytes: await workbook() },
        { fileType: 'excel', sheet: 'Data', onExcelSheets: (sheets) => told.push(sheets) },
      );
      expect(description.records).toBe(2);
      expect(description.columns).toEqual(['id', 'when', 'total', 'label']);
      expect(description.sheets).toEqual(['Summary', 'Data']);
      expect(told).toHaveLength(1);
      expect(description.sheets).toBe(told[0]);
    });

    it('names the sheets when the sheet does not exist', async () => {
      const error = await connectorFailure(records(await workbook(), { fileType: 'excel', sheet: 'Nope' }));
      expect(error.errorType).toBe('not_found');
      expect(error.message).toContain('"Summary"');
    });

    it('decodes base64 content and refuses non-base64 and non-xlsx bytes', async () => {
      const bytes = await workbook();
      expect(
        await records(contentBytes('excel', bytes.toString('base64')), { fileType: 'excel', sheet: 0 }),
      ).toHaveLength(1);
      expect(() => contentBytes('excel', 'not base64!!')).toThrow(
        expect.objectContaining({ errorType: 'invalid_payload' }),
      );
      expect(
        (await connectorFailure(records(Buffer.from('hello world'), { fileType: 'excel' }))).errorType,
      ).toBe('invalid_payload');
      expect(
        (await connectorFailure(records(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0, 0]), { fileType: 'excel' })))
          .message,
      ).toContain('.xls');
    });

    // Reliability fuzz seed 1090633735: the first local header's signature damaged to PK\0\4. The size check
    // within limits read it before exceljs did and let yauzl's own Error through.
    it('refuses a workbook with a damaged local file header as invalid_payload, within limits', async () => {
      const bytes = await workbook();
      bytes[2] = 0;
      const error = await connectorFailure(records(bytes, { fileType: 'excel', limits: parseLimits() }));
      expect(error).toMatchObject({
        errorType: 'invalid_payload',
        message: 'The Excel workbook is damaged: invalid local file header signature: 0x4004b50.',
      });
    });
  });

  describe('empty input', () => {
    it('an empty file is invalid_payload', async () => {
      expect(
        (
          await connectorFailure(
            describeFile({ kind: 'bytes', bytes: new Uint8Array() }, { fileType: 'csv' }),
          )
        ).errorType,
      ).toBe('invalid_payload');
    });

    it('a header-only CSV has zero records', async () => {
      expect(
        (await describeFile({ kind: 'bytes', bytes: Buffer.from('a,b\n') }, { fileType: 'csv' })).records,
      ).toBe(0);
    });
  });
});
