import fc from 'fast-check';
import { AppError } from '../../src/common/errors';
import {
  CONNECTOR_TYPES,
  normalizeConfig,
  resolveConnectorType,
} from '../../src/modules/connectors/connector-types';
import {
  NlColumn,
  QueryNotUnderstoodError,
  resolveNaturalLanguage,
} from '../../src/modules/query/nl-resolver';
import { toQuerySpec } from '../../src/modules/query/query.dto';
import { checkProperty, expectTypedOutcome } from './support/property';

const COLUMNS: readonly NlColumn[] = [
  { name: 'region', type: 'string', role: 'dimension' },
  { name: 'amount', type: 'number', role: 'measure' },
  { name: 'units', type: 'integer', role: 'measure' },
  { name: 'order_date', type: 'date', role: 'time' },
  { name: 'id', type: 'integer', role: 'id' },
];
const NAMES = COLUMNS.map((c) => c.name);
const QUERYABLE = COLUMNS.map(({ name, type }) => ({ name, type }));

/** Values that look like a query's parts often enough to pass the first checks and reach the deeper ones. */
const queryish: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(
      ...NAMES,
      'nope',
      '',
      'sum',
      'avg',
      'count',
      'eq',
      'in',
      'between',
      'asc',
      'desc',
      null,
      0,
      -1,
      Infinity,
      NaN,
    ),
    fc.string({ maxLength: 12 }),
    fc.double(),
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom('column', 'op', 'value', 'function', 'direction', 'as', 'x'),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

const queryInput = fc.dictionary(
  fc.constantFrom(
    'select',
    'where',
    'group_by',
    'aggregates',
    'order_by',
    'limit',
    'offset',
    'query',
    'extra',
  ),
  queryish,
  { maxKeys: 6 },
);

const words = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        ...NAMES,
        'top',
        'bottom',
        '5',
        'by',
        'total',
        'average',
        'count',
        'of',
        'last',
        '7',
        'days',
      ),
      fc.constantFrom(
        'where',
        'is',
        'over',
        'under',
        'between',
        'and',
        'today',
        'yesterday',
        'in',
        '2024',
        'march',
      ),
      fc.constantFrom('show', 'rows', '"', "'", '>', '=', '-1', '1e400', '\u0000', 'é', ''),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(' '));

const configish = fc.dictionary(
  fc.constantFrom(
    'host',
    'port',
    'database',
    'user',
    'password',
    'url',
    'file_type',
    'content',
    'ssl_mode',
    'bucket',
    'path',
    'auth',
    'headers',
    'pagination',
    'delimiter',
    'sheet',
    'encoding',
    'x',
  ),
  queryish,
  { maxKeys: 8 },
);

describe('query grammar, NL resolver and connector config under fuzzing: typed errors only', () => {
  it('the typed query grammar answers any input with a spec or a 422', async () => {
    await checkProperty(
      fc.asyncProperty(queryInput, async (input) => {
        await expectTypedOutcome(() => toQuerySpec(input, QUERYABLE), [AppError]);
      }),
    );
  });

  it('the NL resolver answers any text with a query or QueryNotUnderstoodError, and the query validates', async () => {
    const snapshotTime = new Date('2024-06-30T12:00:00Z');
    await checkProperty(
      fc.asyncProperty(words, async (text) => {
        const { value } = await expectTypedOutcome(
          () => resolveNaturalLanguage(text, { columns: COLUMNS, snapshotTime }),
          [QueryNotUnderstoodError, AppError],
        );
        if (value) {
          toQuerySpec(value.query, QUERYABLE);
        }
      }),
    );
  });

  it('connector type names and configs of every type normalise or answer a 422', async () => {
    await checkProperty(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...CONNECTOR_TYPES), fc.string({ maxLength: 12 })),
        configish,
        async (type, config) => {
          await expectTypedOutcome(() => normalizeConfig(resolveConnectorType(type), config), [AppError]);
        },
      ),
    );
  });
});
