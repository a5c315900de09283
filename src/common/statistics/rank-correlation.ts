/** Spearman's rank correlation: Pearson's correlation of the mid-ranks (ties share the mean of their ranks). */
export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError('spearman needs two samples of the same length');
  return pearson(midRanks(a), midRanks(b));
}

/** Ranks 1..n in the order of the values, equal values sharing the mean of the ranks they span. */
export function midRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => values[i] - values[j] || i - j);
  const ranks = new Float64Array(n);
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && values[order[end]] === values[order[start]]) end++;
    const rank = (start + end + 1) / 2;
    for (let k = start; k < end; k++) ranks[order[k]] = rank;
    start = end;
  }
  return ranks;
}

/** Pearson's correlation; 0 when either sample has no spread (its ranks carry no order to correlate). */
export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  let meanA = 0;
  let meanB = 0;
  for (let i = 0; i < n; i++) {
    meanA += a[i];
    meanB += b[i];
  }
  meanA /= n;
  meanB /= n;
  let cross = 0;
  let squaresA = 0;
  let squaresB = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i] - meanA;
    const db = b[i] - meanB;
    cross += da * db;
    squaresA += da * da;
    squaresB += db * db;
  }
  return squaresA > 0 && squaresB > 0 ? cross / Math.sqrt(squaresA * squaresB) : 0;
}
