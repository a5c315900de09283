export type MatchMethod = 'exact' | 'case_insensitive' | 'normalized' | 'edit_distance';

export interface ColumnMatch {
  readonly token: string;
  readonly column: string;
  readonly method: MatchMethod;
  readonly distance?: number;
}

export class AmbiguousColumnError extends Error {
  constructor(
    readonly phrase: string,
    readonly candidates: readonly string[],
  ) {
    super(`"${phrase}" could mean ${candidates.map((c) => `"${c}"`).join(' or ')}`);
  }
}

/** Lower case without separators; a plural `s` dropped, so "Order Dates" finds `order_date`. */
export function normalizeName(text: string): string {
  const flat = text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  return flat.length > 3 && flat.endsWith('s') && !flat.endsWith('ss') ? flat.slice(0, -1) : flat;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, rows[i - 2][j - 2] + 1);
      }
      row[j] = value;
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > cap) return cap + 1;
    rows.push(row);
  }
  return rows[a.length][b.length];
}

/** How many typos a name of this length tolerates: none for short names, where a typo is another word. */
function tolerance(length: number): number {
  if (length < 4) return 0;
  return length < 8 ? 1 : 2;
}

/**
 * Finds the column a phrase names: exactly, then case-insensitively, then ignoring separators and plurals, then
 * within a small edit distance. Two equally good candidates are an ambiguity, never a pick.
 */
export function matchColumn(
  phrase: string,
  columns: readonly string[],
  allowTypos = true,
): ColumnMatch | undefined {
  if (columns.includes(phrase)) return { token: phrase, column: phrase, method: 'exact' };
  const lower = phrase.toLowerCase();
  const insensitive = columns.filter((c) => c.toLowerCase() === lower);
  if (insensitive.length === 1) return { token: phrase, column: insensitive[0], method: 'case_insensitive' };
  if (insensitive.length > 1) throw new AmbiguousColumnError(phrase, insensitive);
  const normalized = normalizeName(phrase);
  if (normalized === '') return undefined;
  const same = columns.filter((c) => normalizeName(c) === normalized);
  if (same.length === 1) return { token: phrase, column: same[0], method: 'normalized' };
  if (same.length > 1) throw new AmbiguousColumnError(phrase, same);
  const cap = allowTypos ? tolerance(normalized.length) : 0;
  if (cap === 0) return undefined;
  let best: string[] = [];
  let bestDistance = cap + 1;
  for (const column of columns) {
    const distance = editDistance(normalized, normalizeName(column), cap);
    if (distance < bestDistance) {
      best = [column];
      bestDistance = distance;
    } else if (distance === bestDistance && distance <= cap) {
      best.push(column);
    }
  }
  if (best.length === 0 || bestDistance > cap) return undefined;
  if (best.length > 1) throw new AmbiguousColumnError(phrase, best);
  return { token: phrase, column: best[0], method: 'edit_distance', distance: bestDistance };
}
