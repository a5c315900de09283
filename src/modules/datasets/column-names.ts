import { identifierKey, ROW_COLUMN } from './sql-identifiers';

const MAX_NAME_LENGTH = 200;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** Column names of one dataset: DuckDB compares them case-insensitively, so a later name that collides gets `_2`. */
export class ColumnNamer {
  private readonly used = new Set<string>([identifierKey(ROW_COLUMN)]);
  private count = 0;

  nameOf(key: string): string {
    this.count++;
    let base = key.replace(CONTROL_CHARACTERS, '_').trim().slice(0, MAX_NAME_LENGTH);
    if (base === '') base = `column_${this.count}`;
    let name = base;
    for (let n = 2; this.used.has(identifierKey(name)); n++) name = `${base}_${n}`;
    this.used.add(identifierKey(name));
    return name;
  }
}
