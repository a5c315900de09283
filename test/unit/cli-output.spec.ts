import { printResult, renderTable } from '../../src/cli/client/output';
import type { components } from '../../sdk/src/generated/openapi';

type Dataset = components['schemas']['DatasetResponse'];

function printed(...args: Parameters<typeof printResult>): string {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    printResult(...args);
    return write.mock.calls.map(([text]) => String(text)).join('');
  } finally {
    write.mockRestore();
  }
}

describe('decisionctl output', () => {
  it('prints a single object as key/value rows, nested fields by their path', () => {
    const me = {
      organization: { id: 'org_1', name: 'Acme' },
      key: { id: 'key_1', scopes: ['read', 'write'] },
      device_id: null,
      tags: [],
      actions: [{ name: 'launch', mean: 2664.4 }],
    };
    expect(printed('table', me)).toBe(
      [
        'organization.id    org_1',
        'organization.name  Acme',
        'key.id             key_1',
        'key.scopes[0]      read',
        'key.scopes[1]      write',
        'device_id          -',
        'tags               []',
        'actions[0].name    launch',
        'actions[0].mean    2664.4',
        '',
      ].join('\n'),
    );
    expect(printed('json', me)).toBe(`${JSON.stringify(me)}\n`);
  });

  it('takes table columns only from the row type of the contract', () => {
    const rows = [{ id: 'ds_1', dataset_name: 'sales', version: 1, rows: 40, columns: 6 }] as Dataset[];
    expect(renderTable(rows, ['id', 'dataset_name', 'rows'])).toBe(
      'ID    DATASET_NAME  ROWS\nds_1  sales         40',
    );
    // @ts-expect-error -- `name` is not a field of DatasetResponse: a renamed field fails the type-check.
    renderTable(rows, ['name']);
  });
});
