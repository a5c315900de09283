import { ColumnSchema } from './column-profile';
import { DatasetRecord } from './dataset.entity';
import { parseFormulas, parseSchema, StoredFormula } from './datasets.dto';

const MAX_SHAPES = 256;

interface Shape {
  readonly schemaJson: string;
  readonly formulasJson: string;
  readonly columns: readonly ColumnSchema[];
  readonly formulas: readonly StoredFormula[];
}

/**
 * The parsed columns and translated formulas of recently opened dataset records. A query opens its dataset each
 * time; parsing the schema and formulas again is wasted while the record's JSON has not changed (formulas may).
 */
export class DatasetShapes {
  private readonly shapes = new Map<string, Shape>();

  of(record: DatasetRecord): Pick<Shape, 'columns' | 'formulas'> {
    const known = this.shapes.get(record.id);
    if (known && known.schemaJson === record.schemaJson && known.formulasJson === record.formulasJson) {
      return known;
    }
    const shape: Shape = {
      schemaJson: record.schemaJson,
      formulasJson: record.formulasJson,
      columns: parseSchema(record).columns,
      formulas: parseFormulas(record),
    };
    this.shapes.delete(record.id);
    this.shapes.set(record.id, shape);
    if (this.shapes.size > MAX_SHAPES) this.shapes.delete(this.shapes.keys().next().value as string);
    return shape;
  }
}
