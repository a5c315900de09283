import { isEmpiricalSpec, isParamSpec, VariableSpec } from './simulation-request';

/**
 * The engine's draws computed in TypeScript: its random stream (native/common/rng.hpp) and the families of
 * native/common/distributions.hpp, so a test can hold the C++ engine to an independent computation of the same
 * numbers. Transcendental functions come from V8 here and glibc there and may differ in the last bit; PERT (whose
 * engine quantile is an interpolated table) is not evaluated.
 */

const MASK = (1n << 64n) - 1n;
const GOLDEN = 0x9e3779b97f4a7c15n;
/** Runs per chunk with its own stream (engine.hpp kChunk). */
export const CHUNK_RUNS = 4096;

function splitmixMix(z0: bigint): bigint {
  let z = z0 & MASK;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

const splitmixAt = (state: bigint, k: bigint): bigint => splitmixMix(state + (k + 1n) * GOLDEN);
const rotl = (x: bigint, k: bigint): bigint => ((x << k) | (x >> (64n - k))) & MASK;

/** xoshiro256** for chunk `chunk` of a run seeded with `seed`. */
class Xoshiro {
  private readonly s: bigint[];

  constructor(seed: bigint, chunk: number) {
    this.s = [0n, 1n, 2n, 3n].map((i) => splitmixAt(seed, 4n * BigInt(chunk) + i));
    if (!this.s.some((x) => x !== 0n)) this.s[0] = GOLDEN;
  }

  next(): bigint {
    const s = this.s;
    const result = (rotl((s[1] * 5n) & MASK, 7n) * 9n) & MASK;
    const t = (s[1] << 17n) & MASK;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45n);
    return result;
  }
}

const toUnit = (x: bigint): number => Number(x >> 11n) * 2 ** -53;
const openUnit = (u: number): number => (Math.floor(u * 2 ** 52) + 0.5) * 2 ** -52;

/* eslint-disable no-loss-of-precision -- AS 241's published coefficients, digit for digit as in the engine's
   source: both sides use the double nearest each. */
/** Standard normal quantile, Wichura's AS 241 (the engine's coefficients). */
export function normalQuantile(p: number): number {
  if (!(p > 0)) return p === 0 ? -Infinity : NaN;
  if (!(p < 1)) return p === 1 ? Infinity : NaN;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    const num =
      ((((((2.5090809287301226727e3 * r + 3.3430575583588128105e4) * r + 6.7265770927008700853e4) * r +
        4.5921953931549871457e4) *
        r +
        1.3731693765509461125e4) *
        r +
        1.9715909503065514427e3) *
        r +
        1.3314166789178437745e2) *
        r +
      3.387132872796366608;
    const den =
      ((((((5.226495278852854561e3 * r + 2.8729085735721942674e4) * r + 3.930789580009271061e4) * r +
        2.1213794301586595867e4) *
        r +
        5.3941960214247511077e3) *
        r +
        6.871870074920579083e2) *
        r +
        4.2313330701600911252e1) *
        r +
      1.0;
    return (q * num) / den;
  }
  let r = q < 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  let z: number;
  if (r <= 5) {
    r -= 1.6;
    const num =
      ((((((7.7454501427834140764e-4 * r + 2.27238449892691845833e-2) * r + 2.4178072517745061177e-1) * r +
        1.27045825245236838258) *
        r +
        3.64784832476320460504) *
        r +
        5.7694972214606914055) *
        r +
        4.6303378461565452959) *
        r +
      1.42343711074968357734;
    const den =
      ((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 1.51986665636164571966e-2) * r +
        1.4810397642748007459e-1) *
        r +
        6.8976733498510000455e-1) *
        r +
        1.6763848301838038494) *
        r +
        2.05319162663775882187) *
        r +
      1.0;
    z = num / den;
  } else {
    r -= 5;
    const num =
      ((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.2426609473880784386e-3) * r +
        2.6532189526576123093e-2) *
        r +
        2.9656057182850489123e-1) *
        r +
        1.7848265399172913358) *
        r +
        5.4637849111641143699) *
        r +
      6.6579046435011037772;
    const den =
      ((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r +
        7.868691311456132591e-4) *
        r +
        1.48753612908506148525e-2) *
        r +
        1.3692988092273580531e-1) *
        r +
        5.9983220655588793769e-1) *
        r +
      1.0;
    z = num / den;
  }
  return q < 0 ? -z : z;
}
/* eslint-enable no-loss-of-precision */

const Z95 = normalQuantile(0.95);

/** One Gamma(shape, 1) variate: Marsaglia–Tsang on the SplitMix64 sub-stream the engine seeds from `u`. */
function gammaVariate(shape: number, u: number): number {
  const state = splitmixMix(BigInt(u * 2 ** 53) ^ 0x6a09e667f3bcc909n);
  let k = 0n;
  const nextUnit = (): number => toUnit(splitmixAt(state, k++));
  const boost = shape < 1;
  const d = (boost ? shape + 1 : shape) - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  let g = d;
  for (let it = 0; it < 1000; it++) {
    const z = normalQuantile(openUnit(nextUnit()));
    let v = 1 + c * z;
    if (v <= 0) continue;
    v = v * v * v;
    const w = nextUnit();
    if (w < 1 - 0.0331 * (z * z) * (z * z) || Math.log(w) < 0.5 * z * z + d * (1 - v + Math.log(v))) {
      g = d * v;
      break;
    }
  }
  if (boost) g *= Math.pow(openUnit(nextUnit()), 1 / shape);
  return g;
}

export function drawOf(spec: VariableSpec, u: number): number {
  if (isEmpiricalSpec(spec)) {
    const sorted = [...spec.values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(u * sorted.length))];
  }
  if (isParamSpec(spec)) {
    const p = spec.params;
    switch (spec.distribution) {
      case 'normal':
        return p.sd === 0 ? p.mean : p.mean + p.sd * normalQuantile(openUnit(u));
      case 'lognormal':
        return Math.exp(p.sdlog === 0 ? p.meanlog : p.meanlog + p.sdlog * normalQuantile(openUnit(u)));
      case 'gamma':
        return p.scale * gammaVariate(p.shape, u);
      case 'weibull':
        return p.scale * Math.pow(-Math.log1p(-u), 1 / p.shape);
      case 'exponential':
        return -Math.log1p(-u) / p.rate;
      case 'uniform':
        return drawOf({ low: p.min, high: p.max }, u);
      case 'triangular':
        return drawOf({ low: p.min, high: p.max, distribution: 'triangular', mode: p.mode }, u);
      case 'pert':
        throw new Error('PERT draws come from the engine table and are not evaluated here');
    }
  }
  const { low, high } = spec;
  const width = high - low;
  switch (spec.distribution ?? 'uniform') {
    case 'uniform':
      return low + width * u;
    case 'triangular': {
      const mode = spec.mode ?? low + 0.5 * width;
      const p1 = width > 0 ? (mode - low) / width : 0;
      if (u < p1) return low + Math.sqrt(u * (width * (mode - low)));
      return high - Math.sqrt((1 - u) * (width * (high - mode)));
    }
    case 'normal': {
      const mean = 0.5 * (low + high);
      const sd = (high - low) / (2 * Z95);
      return sd === 0 ? mean : mean + sd * normalQuantile(openUnit(u));
    }
    case 'lognormal': {
      const ll = Math.log(low);
      const lh = Math.log(high);
      const m = 0.5 * (ll + lh);
      const s = (lh - ll) / (2 * Z95);
      return Math.exp(s === 0 ? m : m + s * normalQuantile(openUnit(u)));
    }
    case 'pert':
      throw new Error('PERT draws come from the engine table and are not evaluated here');
  }
}

/**
 * Each variable's draws over `runs` runs, in declaration order, as the engine draws them without correlations (with
 * correlations the engine re-pairs the same draws within each chunk of CHUNK_RUNS runs).
 */
export function engineDraws(seed: bigint, variables: readonly VariableSpec[], runs: number): number[][] {
  const out = variables.map(() => new Array<number>(runs));
  let stream: Xoshiro | undefined;
  for (let run = 0; run < runs; run++) {
    if (run % CHUNK_RUNS === 0) stream = new Xoshiro(seed, run / CHUNK_RUNS);
    for (const [v, spec] of variables.entries()) out[v][run] = drawOf(spec, toUnit(stream!.next()));
  }
  return out;
}
