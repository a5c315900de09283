/** Special functions the fits and their goodness-of-fit need, to about 1e-14 relative in double precision. */

const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0];
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i] / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** ψ(x) = d/dx ln Γ(x) for x > 0: the recurrence up to x ≥ 10, then the asymptotic series. */
export function digamma(x: number): number {
  let result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const f = 1 / (x * x);
  return (
    result +
    Math.log(x) -
    0.5 / x -
    f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f * (1 / 132 - f * (691 / 32760))))))
  );
}

/** ψ'(x) for x > 0, the same way. */
export function trigamma(x: number): number {
  let result = 0;
  while (x < 10) {
    result += 1 / (x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return (
    result +
    1 / x +
    f / 2 +
    (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f * (1 / 30 - f * (5 / 66 - f * (691 / 2730))))))
  );
}

const EPSILON = 1e-15;
const TINY = 1e-300;
const MAX_ITERATIONS = 1000;

/** The regularized lower incomplete gamma P(a, x), a > 0: its series below a + 1, its continued fraction above. */
export function gammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  if (!Number.isFinite(x)) return 1;
  const logPrefix = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < MAX_ITERATIONS; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
    }
    return Math.min(1, sum * Math.exp(logPrefix));
  }
  return Math.max(0, 1 - gammaQContinuedFraction(a, x) * Math.exp(logPrefix));
}

/** The upper one, Q(a, x) = 1 − P(a, x), keeping its relative accuracy in the far tail. */
export function gammaQ(a: number, x: number): number {
  if (x < a + 1) return 1 - gammaP(a, x);
  return gammaQContinuedFraction(a, x) * Math.exp(a * Math.log(x) - x - logGamma(a));
}

function gammaQContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return h;
}

/** The standard normal CDF Φ(z), through erfc(t) = Q(1/2, t²) so both tails keep their relative accuracy. */
export function normalCdf(z: number): number {
  const t = z / Math.SQRT2;
  const tail = 0.5 * gammaQ(0.5, t * t);
  return z < 0 ? tail : 1 - tail;
}

/** The regularized incomplete beta I_x(a, b), a, b > 0, by its continued fraction (Lentz). */
export function betaI(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const logPrefix = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logPrefix) * betaContinuedFraction(x, a, b)) / a;
  return 1 - (Math.exp(logPrefix) * betaContinuedFraction(1 - x, b, a)) / b;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return h;
}
