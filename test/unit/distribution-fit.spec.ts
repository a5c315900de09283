import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cdfOf,
  FamilyNotApplicable,
  FIT_FAMILIES,
  fitCandidates,
  fitFamily,
  sampleOf,
} from '../../src/common/statistics/distribution-fit';
import { midRanks, spearman } from '../../src/common/statistics/rank-correlation';
import {
  betaI,
  digamma,
  gammaP,
  logGamma,
  normalCdf,
  trigamma,
} from '../../src/common/statistics/special-functions';

/** Values computed with mpmath at 50 digits by test/fixtures/fits/reference.py. */
interface Reference {
  readonly values: number[];
  readonly gamma: { shape: number; scale: number };
  readonly weibull: { shape: number; scale: number };
  readonly gamma_loglik: number;
  readonly weibull_loglik: number;
}
const reference = JSON.parse(
  readFileSync(join(__dirname, '../fixtures/fits/reference.json'), 'utf8'),
) as Record<string, Reference> & {
  special: {
    digamma: [number, number][];
    trigamma: [number, number][];
    loggamma: [number, number][];
    gammainc: [number, number, number][];
    betainc: [number, number, number, number][];
    ncdf: [number, number][];
  };
};

const relative = (actual: number, expected: number): number =>
  Math.abs(actual - expected) / Math.max(Math.abs(expected), 1e-300);

/** A fixed, irregular sample: 60 positive values with some ties. */
const SAMPLE = Array.from({ length: 60 }, (_, i) => 5 + ((i * 37) % 23) * 0.75 + Math.sin(i) ** 2 * 4);

const sum = (xs: readonly number[], f: (x: number) => number = (x) => x): number =>
  xs.reduce((total, x) => total + f(x), 0);

/** lnΓ by shifting up to x ≥ 20 and Stirling's series there: not the code under test. */
function stirlingLogGamma(x: number): number {
  let shift = 0;
  while (x < 20) {
    shift += Math.log(x);
    x += 1;
  }
  const series = 1 / (12 * x) - 1 / (360 * x ** 3) + 1 / (1260 * x ** 5) - 1 / (1680 * x ** 7);
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

describe('special functions', () => {
  it('match mpmath to 1e-12 relative', () => {
    const s = reference.special;
    for (const [x, y] of s.digamma) expect(relative(digamma(x), y)).toBeLessThan(1e-12);
    for (const [x, y] of s.trigamma) expect(relative(trigamma(x), y)).toBeLessThan(1e-12);
    for (const [x, y] of s.loggamma)
      expect(Math.abs(logGamma(x) - y)).toBeLessThan(1e-12 * Math.max(1, Math.abs(y)));
    for (const [a, x, y] of s.gammainc) expect(relative(gammaP(a, x), y)).toBeLessThan(1e-12);
    for (const [x, a, b, y] of s.betainc) expect(relative(betaI(x, a, b), y)).toBeLessThan(1e-12);
    for (const [z, y] of s.ncdf) expect(relative(normalCdf(z), y)).toBeLessThan(1e-12);
  });
});

describe('closed-form maximum-likelihood fits', () => {
  const n = SAMPLE.length;
  const mean = sum(SAMPLE) / n;

  it('normal: the mean and the population standard deviation, with its AIC', () => {
    const fit = fitFamily('normal', sampleOf(SAMPLE));
    const sd = Math.sqrt(sum(SAMPLE, (x) => (x - mean) ** 2) / n);
    expect(relative(fit.params.mean, mean)).toBeLessThan(1e-13);
    expect(relative(fit.params.sd, sd)).toBeLessThan(1e-13);
    const logLikelihood = sum(
      SAMPLE,
      (x) => -Math.log(sd * Math.sqrt(2 * Math.PI)) - (x - mean) ** 2 / (2 * sd * sd),
    );
    expect(relative(fit.aic, 4 - 2 * logLikelihood)).toBeLessThan(1e-12);
  });

  it('lognormal: mean and population sd of the logarithms', () => {
    const logs = SAMPLE.map(Math.log);
    const meanlog = sum(logs) / n;
    const sdlog = Math.sqrt(sum(logs, (l) => (l - meanlog) ** 2) / n);
    const fit = fitFamily('lognormal', sampleOf(SAMPLE));
    expect(relative(fit.params.meanlog, meanlog)).toBeLessThan(1e-13);
    expect(relative(fit.params.sdlog, sdlog)).toBeLessThan(1e-13);
    const logLikelihood = sum(
      SAMPLE,
      (x) => -Math.log(x * sdlog * Math.sqrt(2 * Math.PI)) - (Math.log(x) - meanlog) ** 2 / (2 * sdlog ** 2),
    );
    expect(relative(fit.logLikelihood, logLikelihood)).toBeLessThan(1e-12);
  });

  it('exponential: rate 1/mean; uniform: the extremes', () => {
    expect(relative(fitFamily('exponential', sampleOf(SAMPLE)).params.rate, 1 / mean)).toBeLessThan(1e-13);
    const uniform = fitFamily('uniform', sampleOf(SAMPLE));
    expect(uniform.params).toEqual({ min: Math.min(...SAMPLE), max: Math.max(...SAMPLE) });
    expect(uniform.aic).toBeCloseTo(4 + 2 * n * Math.log(Math.max(...SAMPLE) - Math.min(...SAMPLE)), 10);
  });
});

describe('gamma and weibull by Newton on the score equations', () => {
  for (const name of ['gamma_like', 'weibull_like', 'small_shape']) {
    const ref = reference[name];
    const xs = ref.values;
    const n = xs.length;

    it(`${name}: gamma matches mpmath and its scale equation holds`, () => {
      const fit = fitFamily('gamma', sampleOf(xs));
      expect(relative(fit.params.shape, ref.gamma.shape)).toBeLessThan(1e-9);
      expect(relative(fit.params.scale, ref.gamma.scale)).toBeLessThan(1e-9);
      expect(relative(fit.logLikelihood, ref.gamma_loglik)).toBeLessThan(1e-10);
      // ∂ℓ/∂θ = −nk/θ + Σx/θ² = 0
      const { shape, scale } = fit.params;
      const terms = [(n * shape) / scale, sum(xs) / scale ** 2];
      expect(Math.abs(terms[1] - terms[0]) / terms[0]).toBeLessThan(1e-8);
    });

    it(`${name}: weibull matches mpmath and both score equations hold to 1e-8`, () => {
      const fit = fitFamily('weibull', sampleOf(xs));
      const { shape: k, scale: lambda } = fit.params;
      expect(relative(k, ref.weibull.shape)).toBeLessThan(1e-9);
      expect(relative(lambda, ref.weibull.scale)).toBeLessThan(1e-9);
      expect(relative(fit.logLikelihood, ref.weibull_loglik)).toBeLessThan(1e-10);
      // ∂ℓ/∂λ ∝ Σ(x/λ)^k − n; ∂ℓ/∂k = n/k + Σ ln(x/λ) − Σ (x/λ)^k ln(x/λ)
      expect(Math.abs(sum(xs, (x) => (x / lambda) ** k) - n) / n).toBeLessThan(1e-8);
      const positive =
        n / k +
        sum(xs, (x) => Math.max(0, Math.log(x / lambda))) +
        sum(xs, (x) => Math.max(0, -((x / lambda) ** k) * Math.log(x / lambda)));
      const score =
        n / k +
        sum(xs, (x) => Math.log(x / lambda)) -
        sum(xs, (x) => (x / lambda) ** k * Math.log(x / lambda));
      expect(Math.abs(score) / positive).toBeLessThan(1e-8);
    });
  }
});

describe('triangular and pert', () => {
  const xs = SAMPLE;
  const n = xs.length;
  const low = Math.min(...xs);
  const high = Math.max(...xs);
  const min = low - (high - low) / (n - 1);
  const max = high + (high - low) / (n - 1);

  it('triangular: bounds widened by one mean spacing, the best mode among the observations', () => {
    const logLikelihood = (c: number): number =>
      sum(xs, (x) =>
        Math.log(
          x < c ? (2 * (x - min)) / ((max - min) * (c - min)) : (2 * (max - x)) / ((max - min) * (max - c)),
        ),
      );
    let best = -Infinity;
    let bestMode = NaN;
    for (const c of xs) {
      if (logLikelihood(c) > best) {
        best = logLikelihood(c);
        bestMode = c;
      }
    }
    const fit = fitFamily('triangular', sampleOf(xs));
    expect(fit.params.min).toBeCloseTo(min, 12);
    expect(fit.params.max).toBeCloseTo(max, 12);
    expect(fit.params.mode).toBe(bestMode);
    expect(relative(fit.logLikelihood, best)).toBeLessThan(1e-12);
    // No mode between observations does better.
    for (let c = min + 1e-3; c < max; c += (max - min) / 997)
      expect(logLikelihood(c)).toBeLessThanOrEqual(best + 1e-9);
  });

  it('pert: the mode maximises the Beta(1 + 4t, 5 − 4t) likelihood on the widened bounds', () => {
    const logLikelihood = (c: number): number => {
      const a = 1 + (4 * (c - min)) / (max - min);
      const b = 1 + (4 * (max - c)) / (max - min);
      const logBeta = stirlingLogGamma(a) + stirlingLogGamma(b) - stirlingLogGamma(a + b);
      return sum(
        xs,
        (x) =>
          (a - 1) * Math.log((x - min) / (max - min)) +
          (b - 1) * Math.log((max - x) / (max - min)) -
          logBeta -
          Math.log(max - min),
      );
    };
    const fit = fitFamily('pert', sampleOf(xs));
    const at = logLikelihood(fit.params.mode);
    expect(relative(fit.logLikelihood, at)).toBeLessThan(1e-10);
    for (let c = min; c <= max; c += (max - min) / 2000)
      expect(logLikelihood(c)).toBeLessThanOrEqual(at + 1e-9);
  });
});

describe('goodness of fit and ranking', () => {
  it('ks_statistic is the largest gap between the empirical and the fitted CDF', () => {
    const xs = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8];
    const fit = fitFamily('normal', sampleOf(xs));
    const cdf = (x: number): number => cdfOf('normal', fit.params)(x);
    let d = 0;
    for (const x of xs) {
      const below = xs.filter((y) => y < x).length / xs.length;
      const atOrBelow = xs.filter((y) => y <= x).length / xs.length;
      d = Math.max(d, Math.abs(atOrBelow - cdf(x)), Math.abs(below - cdf(x)));
    }
    expect(fit.ksStatistic).toBeCloseTo(d, 14);
  });

  it('candidates come lowest AIC first and leave out families the data cannot have', () => {
    const withNegatives = SAMPLE.map((x) => x - 10);
    const fits = fitCandidates(FIT_FAMILIES, sampleOf(withNegatives));
    expect(fits.map((f) => f.family).sort()).toEqual(['normal', 'pert', 'triangular', 'uniform']);
    for (let i = 1; i < fits.length; i++) expect(fits[i].aic).toBeGreaterThanOrEqual(fits[i - 1].aic);
    expect(() => fitFamily('gamma', sampleOf(withNegatives))).toThrow(FamilyNotApplicable);
    expect(() => fitFamily('normal', sampleOf(Array(12).fill(4)))).toThrow(FamilyNotApplicable);
  });

  it('data drawn from a gamma are best described by a gamma', () => {
    const fits = fitCandidates(FIT_FAMILIES, sampleOf(reference.gamma_like.values));
    expect(fits[0].family).toBe('gamma');
    expect(fits).toHaveLength(FIT_FAMILIES.length);
  });
});

describe('spearman', () => {
  it('is Pearson of the mid-ranks, ties included', () => {
    const a = [1, 2, 2, 3, 7, 7, 7, 0, 5, 4];
    const b = [2, 1, 4, 4, 9, 3, 8, 1, 6, 5];
    const rankOf = (xs: number[], x: number): number =>
      xs.filter((y) => y < x).length + (xs.filter((y) => y === x).length + 1) / 2;
    const ra = a.map((x) => rankOf(a, x));
    const rb = b.map((x) => rankOf(b, x));
    expect(Array.from(midRanks(a))).toEqual(ra);
    const m = (xs: number[]): number => sum(xs) / xs.length;
    const cov = sum(ra.map((r, i) => (r - m(ra)) * (rb[i] - m(rb))));
    const expected = cov / Math.sqrt(sum(ra, (r) => (r - m(ra)) ** 2) * sum(rb, (r) => (r - m(rb)) ** 2));
    expect(spearman(a, b)).toBeCloseTo(expected, 14);
    expect(spearman(a, a)).toBe(1);
    expect(spearman(a, Array(10).fill(1))).toBe(0);
  });
});
