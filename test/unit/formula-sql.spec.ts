import { formulaSql, formulaType } from '../../src/modules/datasets/formula-sql';
import { parseExpression } from '../../src/common/expression/expression';

const columns = ['revenue', 'units', 'cost'];
const sql = (text: string) => formulaSql(parseExpression(text, columns));

describe('formula translation to SQLite', () => {
  it.each([
    ['revenue - cost', '("revenue" - "cost")'],
    ['revenue / units', '(cast("revenue" as real) / "units")'],
    ['units ^ 2', 'pow("units", 2.0)'],
    ['-revenue * 1.5', '((-"revenue") * 1.5)'],
    ['min(revenue, cost, 3)', 'min("revenue", "cost", 3.0)'],
    ['max(units)', '"units"'],
    [
      'log(revenue) + exp(1) + sqrt(units) + abs(cost)',
      '(((ln("revenue") + exp(1.0)) + sqrt("units")) + abs("cost"))',
    ],
    ['if(units > 3, revenue, 0)', '(case when ("units" > 3.0) <> 0 then "revenue" else 0.0 end)'],
    ['revenue == cost', '("revenue" = "cost")'],
    ['revenue != cost', '("revenue" <> "cost")'],
  ])('%s', (text, expected) => {
    expect(sql(text)).toBe(expected);
  });

  it('types a top-level comparison as boolean, anything else as number', () => {
    expect(formulaType(parseExpression('revenue > cost', columns))).toBe('boolean');
    expect(formulaType(parseExpression('(revenue > cost) * 2', columns))).toBe('number');
  });
});
