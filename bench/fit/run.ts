/**
 * The fitting math over the largest sample a fit or an empirical variable uses (1,000,000 values, the cap of
 * docs/simulation.md), without reading a dataset: the sort, each family's maximum-likelihood fit with its KS
 * statistic, and all eight as `fit` does, ROUNDS times; the report gives the median and the spread.
 *
 *   bash bench/fit/run.sh [values] [rounds]
 */
import {
  FIT_FAMILIES,
  fitCandidates,
  fitFamily,
  sampleOf,
} from '../../src/common/statistics/distribution-fit';
import { loadavg } from 'node:os';
import { spearman } from '../../src/common/statistics/rank-correlation';

const values = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 5);

/** xorshift32 → a gamma-like positive sample (sum of two exponentials), the same bytes every run. */
function sample(n: number, seed: number): Float64Array {
  let x = seed >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return (x + 0.5) / 0x100000000;
  };
  return Float64Array.from({ length: n }, () => -40 * Math.log(next()) - 25 * Math.log(next()));
}

function time(work: () => void): number {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const data = sample(values, 38);
const other = sample(values, 39);
const figures = new Map<string, number[]>();
const record = (name: string, ms: number): void => {
  figures.set(name, [...(figures.get(name) ?? []), ms]);
};
for (let round = 0; round < rounds; round++) {
  let prepared = sampleOf(data);
  record(
    'sort and sums',
    time(() => (prepared = sampleOf(data))),
  );
  for (const family of FIT_FAMILIES)
    record(
      family,
      time(() => fitFamily(family, prepared)),
    );
  record(
    'fit (all eight, with the sort)',
    time(() => fitCandidates(FIT_FAMILIES, sampleOf(data))),
  );
  record(
    'spearman of two columns',
    time(() => spearman(data, other)),
  );
}
console.log(
  `values ${values}, rounds ${rounds}, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log('| step | median ms (min–max) |\n| --- | --- |');
for (const [name, ms] of figures) {
  console.log(
    `| ${name} | ${median(ms).toFixed(0)} (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}) |`,
  );
}
