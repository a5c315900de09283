import { AppError, ErrorDetail } from '../../common/errors';
import { SimulationRequest } from './simulation-request';

/**
 * The engine's check of `scenario.correlations` (native/engine/correlate.cpp, engine.cpp correlation_plan) run before
 * a request is stored to run later (a job, a trigger), so an impossible matrix is refused when it is submitted rather
 * than when it runs. The same arithmetic as the engine (Jacobi rotations use only +, *, / and sqrt), so both accept
 * and refuse the same matrices; the engine checks again.
 */

type Matrix = number[];

function symmetricEigenvalues(input: readonly number[], k: number): { values: number[]; vectors: Matrix } {
  const a = [...input];
  const v: Matrix = new Array<number>(k * k).fill(0);
  for (let i = 0; i < k; i++) v[i * k + i] = 1;
  const scale = a.reduce((s, x) => s + x * x, 0);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < k; p++) for (let q = p + 1; q < k; q++) off += a[p * k + q] * a[p * k + q];
    if (off <= 1e-30 * scale || off === 0) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = a[p * k + q];
        if (apq === 0) continue;
        const theta = (a[q * k + q] - a[p * k + p]) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let i = 0; i < k; i++) {
          const aip = a[i * k + p];
          const aiq = a[i * k + q];
          a[i * k + p] = c * aip - s * aiq;
          a[i * k + q] = s * aip + c * aiq;
        }
        for (let i = 0; i < k; i++) {
          const api = a[p * k + i];
          const aqi = a[q * k + i];
          a[p * k + i] = c * api - s * aqi;
          a[q * k + i] = s * api + c * aqi;
        }
        for (let i = 0; i < k; i++) {
          const vip = v[i * k + p];
          const viq = v[i * k + q];
          v[i * k + p] = c * vip - s * viq;
          v[i * k + q] = s * vip + c * viq;
        }
      }
    }
  }
  return { values: Array.from({ length: k }, (_, i) => a[i * k + i]), vectors: v };
}

export function minEigenvalue(a: readonly number[], k: number): number {
  return Math.min(...symmetricEigenvalues(a, k).values);
}

function psdProjection(a: readonly number[], k: number): Matrix {
  const { values, vectors } = symmetricEigenvalues(a, k);
  const out: Matrix = new Array<number>(k * k).fill(0);
  for (let e = 0; e < k; e++) {
    const lambda = Math.max(values[e], 0);
    if (lambda === 0) continue;
    for (let i = 0; i < k; i++) {
      const vi = vectors[i * k + e] * lambda;
      for (let j = 0; j < k; j++) out[i * k + j] += vi * vectors[j * k + e];
    }
  }
  return out;
}

/** Higham's nearest correlation matrix (alternating projections with Dykstra's correction), as the engine's. */
export function nearestCorrelation(a: readonly number[], k: number): Matrix {
  const y = [...a];
  const ds: Matrix = new Array<number>(k * k).fill(0);
  let x: Matrix = new Array<number>(k * k).fill(0);
  for (let it = 0; it < 200; it++) {
    const r = y.map((value, i) => value - ds[i]);
    x = psdProjection(r, k);
    for (let i = 0; i < k * k; i++) ds[i] = x[i] - r[i];
    let change = 0;
    let norm = 0;
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) {
        const next = i === j ? 1 : x[i * k + j];
        change += (next - y[i * k + j]) ** 2;
        norm += next * next;
        y[i * k + j] = next;
      }
    }
    if (change <= 1e-24 * norm) break;
  }
  const d = Array.from({ length: k }, (_, i) => (x[i * k + i] > 0 ? 1 / Math.sqrt(x[i * k + i]) : 0));
  const out: Matrix = new Array<number>(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      out[i * k + j] = i === j ? 1 : Math.max(-1, Math.min(1, x[i * k + j] * d[i] * d[j]));
    }
  }
  for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) out[j * k + i] = out[i * k + j];
  return out;
}

const pearsonForSpearman = (rho: number): number => 2 * Math.sin((Math.PI * rho) / 6);
const spearmanForPearson = (r: number): number => (6 / Math.PI) * Math.asin(r / 2);
const fmt = (x: number): string => String(Number(x.toPrecision(4)));

/**
 * Throws AppError correlation_matrix_invalid, naming the pairs the nearest valid matrix changes, when the request's
 * rank-correlation targets do not form a positive semi-definite matrix and `adjust_correlations` is not true. The
 * variables, pairs and ranks are assumed valid one by one (the DTO checked them).
 */
export function assertValidCorrelations(request: SimulationRequest): void {
  const { correlations, adjust_correlations: adjust, variables } = request.scenario;
  if (!correlations || correlations.length === 0 || adjust === true) return;
  const names = [...variables.keys()];
  const involved = [...new Set(correlations.flatMap((c) => [c.a, c.b]))]
    .map((name) => names.indexOf(name))
    .filter((index) => index >= 0)
    .sort((x, y) => x - y);
  const k = involved.length;
  const at = new Map(involved.map((index, j) => [names[index], j]));
  const m: Matrix = new Array<number>(k * k).fill(0);
  for (let j = 0; j < k; j++) m[j * k + j] = 1;
  for (const c of correlations) {
    const i = at.get(c.a);
    const j = at.get(c.b);
    if (i === undefined || j === undefined) return;
    m[i * k + j] = m[j * k + i] = c.rank;
  }
  if (minEigenvalue(m, k) >= -1e-10) return;
  const near = nearestCorrelation(m.map(pearsonForSpearman), k).map(spearmanForPearson);
  const nearOf = (a: string, b: string): number => near[at.get(a)! * k + at.get(b)!];
  const largest = Math.max(...correlations.map((c) => Math.abs(nearOf(c.a, c.b) - c.rank)));
  const details: ErrorDetail[] = [];
  for (const [i, c] of correlations.entries()) {
    const value = nearOf(c.a, c.b);
    if (Math.abs(value - c.rank) < 0.1 * largest) continue; // the largest move is always named
    details.push({
      field: `scenario.correlations[${i}]`,
      problem:
        `the rank correlations of ${c.a} and ${c.b} and the other pairs are not a valid correlation matrix (not ` +
        `positive semi-definite); the nearest valid matrix has ${fmt(value)} here instead of ${fmt(c.rank)} (set ` +
        'adjust_correlations to use it)',
    });
  }
  throw new AppError(
    'correlation_matrix_invalid',
    `The rank correlations do not form a valid correlation matrix: ${details.length} ` +
      `${details.length === 1 ? 'problem' : 'problems'} found; first: ${details[0].field} ${details[0].problem}.`,
    details,
  );
}
