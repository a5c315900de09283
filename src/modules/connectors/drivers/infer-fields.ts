export interface InferredField {
  readonly name: string;
  /** string, integer, number, boolean, array, null, or `mixed` when values disagree. */
  readonly type: string;
}

function kind(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Field names in first-seen order with the type their non-null sample values share. */
export function inferFields(records: readonly Record<string, unknown>[]): InferredField[] {
  const types = new Map<string, Set<string>>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) {
      const set = types.get(name) ?? new Set<string>();
      const k = kind(value);
      if (k !== 'null') set.add(k);
      types.set(name, set);
    }
  }
  return [...types.entries()].map(([name, set]) => {
    if (set.size === 2 && set.has('integer') && set.has('number')) return { name, type: 'number' };
    return { name, type: set.size === 0 ? 'null' : set.size === 1 ? [...set][0] : 'mixed' };
  });
}
