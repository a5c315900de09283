/** Figures over a benchmark's rounds: each is quoted as its median with the spread of the rounds beside it. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `median (min–max)` of one figure over the rounds. */
export function spread(values: readonly number[], digits: number, unit = ''): string {
  const f = (v: number): string => v.toFixed(digits);
  return `${f(median(values))}${unit} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}
