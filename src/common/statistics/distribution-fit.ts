import { betaI, digamma, gammaP, logGamma, normalCdf, trigamma } from './special-functions';

export const FIT_FAMILIES = [
  'normal',
  'lognormal',
  'gamma',
  'weibull',
  'exponential',
  'uniform',
  'triangular',
  'pert',
] as const;
export type FitFamily = (typeof FIT_FAMILIES)[number];

export type FitParams = Readonly<Record<string, number>>;

export interface FittedFamily {
  readonly family: FitFamily;
  readonly params: FitParams;
  readonly logLikelihood: number;
  readonly aic: number;
  readonly ksStatistic: number;
}

export class FamilyNotApplicable extends Error {
  constructor(
    readonly family: FitFamily,
    reason: string,
    readonly isConstant = false,
  ) {
    super(reason);
  }
}

export interface Sample {
  readonly sorted: Float64Array;
  readonly n: number;
  readonly mean: number;
  readonly sumLog: number;
}

export function sampleOf(values: ArrayLike<number>): Sample {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  let sumLog = 0;
  for (const x of sorted) {
    sum += x;
    sumLog += Math.log(x);
  }
  return { sorted, n: sorted.length, mean: sum / sorted.length, sumLog: sorted[0] > 0 ? sumLog : NaN };
}

const PARAMETER_COUNT: Readonly<Record<FitFamily, number>> = {
  normal: 2,
  lognormal: 2,
  gamma: 2,
  weibull: 2,
  exponential: 1,
  uniform: 2,
  triangular: 3,
  pert: 3,
};

export function fitFamily(family: FitFamily, sample: Sample): FittedFamily {
  const { params, logLikelihood } = estimate(family, sample);
  return {
    family,
    params,
    logLikelihood,
    aic: 2 * PARAMETER_COUNT[family] - 2 * logLikelihood,
    ksStatistic: ksStatistic(sample.sorted, cdfOf(family, params)),
  };
}

export function fitCandidates(families: readonly FitFamily[], sample: Sample): FittedFamily[] {
  const fits: FittedFamily[] = [];
  for (const family of families) {
    try {
      fits.push(fitFamily(family, sample));
    } catch (error) {
      if (!(error instanceof FamilyNotApplicable)) throw error;
    }
  }
  return fits.sort((a, b) => a.aic - b.aic || (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
}

interface Estimate {
  readonly params: FitParams;
  readonly logLikelihood: number;
}

function estimate(family: FitFamily, sample: Sample): Estimate {
  const { sorted, n } = sample;
  if (sorted[0] === sorted[n - 1]) {
    throw new FamilyNotApplicable(family, 'every value is the same', true);
  }
  switch (family) {
    case 'normal':
      return fitNormal(sample);
    case 'lognormal':
      return fitLognormal(positive(family, sample));
    case 'gamma':
      return fitGamma(positive(family, sample));
    case 'weibull':
      return fitWeibull(positive(family, sample));
    case 'exponential':
      if (sorted[0] < 0) throw new FamilyNotApplicable(family, 'exponential needs every value ≥ 0');
      return fitExponential(sample);
    case 'uniform':
      return {
        params: { min: sorted[0], max: sorted[n - 1] },
        logLikelihood: -n * Math.log(sorted[n - 1] - sorted[0]),
      };
    case 'triangular':
      return fitTriangular(sample);
    case 'pert':
      return fitPert(sample);
  }
}

function positive(family: FitFamily, sample: Sample): Sample {
  if (!(sample.sorted[0] > 0)) throw new FamilyNotApplicable(family, `${family} needs every value > 0`);
  return sample;
}

function fitNormal({ sorted, n, mean }: Sample): Estimate {
  let squares = 0;
  for (const x of sorted) squares += (x - mean) ** 2;
  const variance = squares / n;
  return {
    params: { mean, sd: Math.sqrt(variance) },
    logLikelihood: -0.5 * n * (Math.log(2 * Math.PI * variance) + 1),
  };
}

function fitLognormal({ sorted, n, sumLog }: Sample): Estimate {
  const meanlog = sumLog / n;
  let squares = 0;
  for (const x of sorted) squares += (Math.log(x) - meanlog) ** 2;
  const variance = squares / n;
  if (!(variance > 0)) throw new FamilyNotApplicable('lognormal', 'the logarithms have no spread');
  return {
    params: { meanlog, sdlog: Math.sqrt(variance) },
    logLikelihood: -0.5 * n * (Math.log(2 * Math.PI * variance) + 1) - sumLog,
  };
}

function fitExponential({ n, mean }: Sample): Estimate {
  const rate = 1 / mean;
  return { params: { rate }, logLikelihood: n * Math.log(rate) - n };
}

/** ln k − ψ(k) = ln x̄ − mean(ln x) falls from +∞ to 0 in k, so bracketed Newton from Minka's start converges. */
function fitGamma({ sorted, n, mean, sumLog }: Sample): Estimate {
  const s = Math.log(mean) - sumLog / n;
  if (!(s > 0)) throw new FamilyNotApplicable('gamma', 'the values have no spread on the log scale');
  const step = (k: number): [number, number] => [Math.log(k) - digamma(k) - s, 1 / k - trigamma(k)];
  const start = (3 - s + Math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s);
  const shape = solveMonotone(step, start, false);
  const scale = mean / shape;
  let sum = 0;
  for (const x of sorted) sum += x;
  return {
    params: { shape, scale },
    logLikelihood: (shape - 1) * sumLog - sum / scale - n * shape * Math.log(scale) - n * logGamma(shape),
  };
}

/** Values are divided by the largest first so that xᵏ cannot overflow; the shape's equation does not change. */
function fitWeibull({ sorted, n, sumLog }: Sample): Estimate {
  const largest = sorted[n - 1];
  const logs = new Float64Array(n);
  let meanLogScaled = 0;
  for (let i = 0; i < n; i++) {
    logs[i] = Math.log(sorted[i] / largest);
    meanLogScaled += logs[i];
  }
  meanLogScaled /= n;
  const step = (k: number): [number, number] => {
    let b = 0;
    let a = 0;
    let c = 0;
    for (const l of logs) {
      const p = Math.exp(k * l);
      b += p;
      a += p * l;
      c += p * l * l;
    }
    return [a / b - 1 / k - meanLogScaled, (c * b - a * a) / (b * b) + 1 / (k * k)];
  };
  let logVariance = 0;
  for (const l of logs) logVariance += (l - meanLogScaled) ** 2;
  const start = Math.PI / Math.sqrt(6 * (logVariance / n));
  const shape = solveMonotone(step, start, true);
  let b = 0;
  for (const l of logs) b += Math.exp(shape * l);
  const scale = largest * (b / n) ** (1 / shape);
  let tail = 0;
  for (const x of sorted) tail += (x / scale) ** shape;
  return {
    params: { shape, scale },
    logLikelihood: n * Math.log(shape) - n * shape * Math.log(scale) + (shape - 1) * sumLog - tail,
  };
}

/** Newton steps, falling back to bisection of the bracket found so far whenever a step leaves it. */
function solveMonotone(
  step: (x: number) => [value: number, slope: number],
  start: number,
  increasing: boolean,
): number {
  let low = 0;
  let high = Infinity;
  let x = start;
  for (let i = 0; i < 200; i++) {
    const [value, slope] = step(x);
    if (value === 0) return x;
    if (value > 0 === increasing) high = x;
    else low = x;
    let next = x - value / slope;
    if (!(next > low && next < high)) next = Number.isFinite(high) ? (low + high) / 2 : x * 2;
    if (Math.abs(next - x) <= 1e-15 * x) return next;
    x = next;
  }
  return x;
}

/**
 * The likelihood of triangular and PERT has no maximum at the sample extremes (the density is 0 there), so the bounds
 * are the extremes widened by one mean spacing, by which an order statistic undershoots the bound on average.
 */
function widenedBounds({ sorted, n }: Sample): { min: number; max: number } {
  const spacing = (sorted[n - 1] - sorted[0]) / (n - 1);
  return { min: sorted[0] - spacing, max: sorted[n - 1] + spacing };
}

/** With the bounds fixed the best mode lies at an observation (Oliver 1972); prefix sums keep the search linear. */
function fitTriangular(sample: Sample): Estimate {
  const { sorted, n } = sample;
  const { min, max } = widenedBounds(sample);
  const suffix = new Float64Array(n + 1);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + Math.log(max - sorted[i]);
  let prefix = 0;
  let best = -Infinity;
  let mode = sorted[0];
  for (let r = 0; r < n; r++) {
    const c = sorted[r];
    if (r > 0 && c === sorted[r - 1]) {
      prefix += Math.log(sorted[r - 1] - min);
      continue;
    }
    const value = prefix - r * Math.log(c - min) + suffix[r] - (n - r) * Math.log(max - c);
    if (value > best) {
      best = value;
      mode = c;
    }
    prefix += Math.log(c - min);
  }
  return {
    params: { min, mode, max },
    logLikelihood: n * Math.log(2) - n * Math.log(max - min) + best,
  };
}

/** PERT is Beta(1 + 4t, 5 − 4t) on [min, max]; with the bounds fixed the log-likelihood is concave in t. */
function fitPert(sample: Sample): Estimate {
  const { sorted, n } = sample;
  const { min, max } = widenedBounds(sample);
  const width = max - min;
  let sumLogY = 0;
  let sumLogOneMinusY = 0;
  for (const x of sorted) {
    sumLogY += Math.log((x - min) / width);
    sumLogOneMinusY += Math.log((max - x) / width);
  }
  const gap = (sumLogY - sumLogOneMinusY) / n;
  let low = 0;
  let high = 1;
  for (let i = 0; i < 100 && high - low > 1e-16; i++) {
    const t = (low + high) / 2;
    if (digamma(1 + 4 * t) - digamma(5 - 4 * t) < gap) low = t;
    else high = t;
  }
  const t = (low + high) / 2;
  const alpha = 1 + 4 * t;
  const beta = 5 - 4 * t;
  const logBeta = logGamma(alpha) + logGamma(beta) - logGamma(alpha + beta);
  return {
    params: { min, mode: min + t * width, max },
    logLikelihood: (alpha - 1) * sumLogY + (beta - 1) * sumLogOneMinusY - n * logBeta - n * Math.log(width),
  };
}

export function cdfOf(family: FitFamily, p: FitParams): (x: number) => number {
  switch (family) {
    case 'normal':
      return (x) => (p.sd > 0 ? normalCdf((x - p.mean) / p.sd) : x < p.mean ? 0 : 1);
    case 'lognormal':
      return (x) => (x <= 0 ? 0 : normalCdf((Math.log(x) - p.meanlog) / p.sdlog));
    case 'gamma':
      return (x) => gammaP(p.shape, x / p.scale);
    case 'weibull':
      return (x) => (x <= 0 ? 0 : -Math.expm1(-((x / p.scale) ** p.shape)));
    case 'exponential':
      return (x) => (x <= 0 ? 0 : -Math.expm1(-p.rate * x));
    case 'uniform':
      return (x) => Math.min(1, Math.max(0, (x - p.min) / (p.max - p.min)));
    case 'triangular':
      return (x) => {
        if (x <= p.min) return 0;
        if (x >= p.max) return 1;
        const width = p.max - p.min;
        return x <= p.mode
          ? (x - p.min) ** 2 / (width * (p.mode - p.min))
          : 1 - (p.max - x) ** 2 / (width * (p.max - p.mode));
      };
    case 'pert': {
      const width = p.max - p.min;
      const alpha = 1 + (4 * (p.mode - p.min)) / width;
      const beta = 1 + (4 * (p.max - p.mode)) / width;
      return (x) => betaI((x - p.min) / width, alpha, beta);
    }
  }
}

/** D = sup |F̂(x) − F(x)| over a sorted sample: the larger gap on either side of each step of the empirical CDF. */
export function ksStatistic(sorted: Float64Array, cdf: (x: number) => number): number {
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(sorted[i]);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  return d;
}
