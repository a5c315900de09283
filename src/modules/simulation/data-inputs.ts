import type { ColumnSource, ResolvedColumn, SourceProvenance } from '../query/data-fit.service';
import { DataDistribution, DataVariableDto } from './data-inputs.dto';

/**
 * Variables drawn from a dataset column (`{from: {dataset_id, column, where?}, distribution}`) and the scenario's
 * `correlations_from_data`. The request struct holds each such variable as the range [0, 1], which keeps its place
 * (and so its random stream); it is resolved only when the request runs (docs/simulation.md), and a stored request
 * keeps it as it was sent.
 */
export interface DataVariable {
  readonly from: ColumnSource;
  readonly distribution: DataDistribution;
}

export interface DataInputs {
  readonly variables: ReadonlyMap<string, DataVariable>;
  readonly correlationsFromData: boolean;
}

export const NO_DATA_INPUTS: DataInputs = { variables: new Map(), correlationsFromData: false };

export function dataInputsOf(scenario: {
  readonly variables: ReadonlyMap<string, unknown>;
  readonly correlations_from_data?: boolean;
}): DataInputs {
  const variables = new Map<string, DataVariable>();
  for (const [name, variable] of scenario.variables) {
    if (!(variable instanceof DataVariableDto)) continue;
    const { dataset_id, column, where } = variable.from;
    variables.set(name, {
      from: { dataset_id, column, ...(where !== undefined ? { where } : {}) },
      distribution: variable.distribution,
    });
  }
  const correlationsFromData = scenario.correlations_from_data === true;
  return variables.size === 0 && !correlationsFromData ? NO_DATA_INPUTS : { variables, correlationsFromData };
}

/** The data inputs back in a stored body (its variables in their order), so the request reads as it was sent. */
export function withDataInputs(stored: Record<string, unknown>, inputs: DataInputs): Record<string, unknown> {
  if (inputs.variables.size === 0 && !inputs.correlationsFromData) return stored;
  const scenario = stored.scenario as Record<string, unknown>;
  const variables = { ...(scenario.variables as Record<string, unknown>) };
  for (const [name, variable] of inputs.variables) {
    variables[name] = { from: variable.from, distribution: variable.distribution };
  }
  return {
    ...stored,
    scenario: {
      ...scenario,
      variables,
      ...(inputs.correlationsFromData ? { correlations_from_data: true } : {}),
    },
  };
}

/**
 * A resolved column in the engine's wire format (docs/engine.md): uniform, triangular and PERT as ranges (the engine
 * draws a range and the same family by parameters bit for bit), every other family by its parameters, `empirical`
 * as its values.
 */
export function engineVariable(resolved: ResolvedColumn): Record<string, unknown> {
  if (resolved.distribution === 'empirical') {
    return { distribution: 'empirical', values: Array.from(resolved.values) };
  }
  const { params } = resolved;
  switch (resolved.distribution) {
    case 'uniform':
      return { low: params.min, high: params.max, distribution: 'uniform' };
    case 'triangular':
    case 'pert':
      return { low: params.min, high: params.max, distribution: resolved.distribution, mode: params.mode };
    case 'normal':
    case 'lognormal':
    case 'gamma':
    case 'weibull':
    case 'exponential':
      return { distribution: resolved.distribution, params: { ...params } };
  }
}

export interface InputProvenance {
  readonly source: SourceProvenance;
  readonly distribution: string;
  readonly params?: Readonly<Record<string, number>>;
  readonly fit?: { readonly aic: number; readonly ks_statistic: number };
}

export function provenanceOf(resolved: ResolvedColumn): InputProvenance {
  return resolved.distribution === 'empirical'
    ? { source: resolved.source, distribution: 'empirical' }
    : {
        source: resolved.source,
        distribution: resolved.distribution,
        params: resolved.params,
        fit: resolved.fit,
      };
}

/** Two variables are rows of one table when they read the same dataset under the same conditions. */
export function sameRows(a: ColumnSource, b: ColumnSource): boolean {
  return a.dataset_id === b.dataset_id && JSON.stringify(a.where ?? []) === JSON.stringify(b.where ?? []);
}
