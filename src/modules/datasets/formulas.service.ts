import { Injectable } from '@nestjs/common';
import { AppError, ErrorDetail } from '../../common/errors';
import { Principal } from '../../common/auth/principal';
import { ExpressionError, parseExpression } from '../../common/expression/expression';
import { DatasetsService } from './datasets.service';
import { DatasetSchemaResponse, FormulaDto, StoredFormula } from './datasets.dto';
import { formulaSql, formulaType } from './formula-sql';
import { identifierKey } from './sql-identifiers';

/** `PUT /v1/data/{id}/formulas`: derived columns in the engine's expression language, translated to SQL. */
@Injectable()
export class FormulasService {
  constructor(private readonly datasets: DatasetsService) {}

  /** Replaces the dataset's formulas; every problem is reported at once and nothing changes unless all hold. */
  async set(
    principal: Principal,
    id: string,
    formulas: readonly FormulaDto[],
  ): Promise<DatasetSchemaResponse> {
    const dataset = await this.datasets.ownedForUpdate(principal, id);
    const columns = this.datasets.columnsOf(dataset);
    const usable = new Set(
      columns
        .filter((c) => c.type !== 'string' && c.type !== 'date' && c.type !== 'timestamp')
        .map((c) => c.name),
    );
    const taken = new Set(columns.map((c) => identifierKey(c.name)));
    const problems: ErrorDetail[] = [];
    const stored: StoredFormula[] = [];
    formulas.forEach((formula, index) => {
      const key = identifierKey(formula.name);
      if (taken.has(key)) {
        problems.push({
          field: `formulas[${index}].name`,
          problem: `"${formula.name}" is already a column or formula`,
        });
        return;
      }
      taken.add(key);
      try {
        const expression = parseExpression(formula.expression, usable);
        stored.push({
          name: formula.name,
          expression: formula.expression,
          type: formulaType(expression),
          sql: formulaSql(expression),
        });
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        const hint = /unknown|name/i.test(error.problem)
          ? ' (formulas read numeric and boolean columns)'
          : '';
        problems.push({ field: `formulas[${index}].expression`, problem: `${error.message}${hint}` });
      }
    });
    if (problems.length > 0) throw AppError.validation(problems);
    await this.datasets.replaceFormulas(dataset, stored);
    return this.datasets.schema(principal, id);
  }
}
