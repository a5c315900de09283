import { formulaSql, formulaType } from '../../src/modules/datasets/formula-sql';
import { parseExpression } from '../../src/common/expression/expression';

const columns = ['revenue', 'units', 'cost'];
const sql = (text: string) => formulaSql(parseExpression(text, columns));

describe('formula translation to DuckDB', () => {
  const finite = (e: string) => `(case when isfinite(${e}) then ${e} end)`;
  const d = (name: string) => `cast("${name}" as double)`;
  it.each([
    ['revenue - cost', finite(`(${d('revenue')} - ${d('cost')})`)],
    ['revenue / units', finite(`(${d('revenue')} / nullif(${d('units')}, 0))`)],
    ['units ^ 2', finite(`pow(${d('units')}, 2.0)`)],
    ['-revenue * 1.5', finite(`((-${d('revenue')}) * 1.5)`)],
    ['min(revenue, cost, 3)', finite(`least(${d('revenue')}, ${d('cost')}, 3.0)`)],
    ['max(units)', finite(d('units'))],
    [
      'log(revenue) + exp(1) + sqrt(units)',
      finite(
        `(((case when ${d('revenue')} > 0 then ln(${d('revenue')}) end) + exp(1.0)) + ` +
          `(case when ${d('units')} >= 0 then sqrt(${d('units')}) end))`,
      ),
    ],
    [
      'if(units > 3, revenue, 0)',
      finite(`(case when cast((${d('units')} > 3.0) as double) <> 0 then ${d('revenue')} else 0.0 end)`),
    ],
    ['revenue == cost', `(${d('revenue')} = ${d('cost')})`],
    ['revenue != cost', `(${d('revenue')} <> ${d('cost')})`],
  ])('%s', (text, expected) => {
    expect(sql(text)).toBe(expected);
  });

  it('types a top-level comparison as boolean, anything else as number', () => {
    expect(formulaType(parseExpression('revenue > cost', columns))).toBe('boolean');
    expect(formulaType(parseExpression('(revenue > cost) * 2', columns))).toBe('number');
  });
});
