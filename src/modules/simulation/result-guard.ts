import { AppError } from '../../common/errors';
import { EngineResult } from '../engine/engine.types';
import { SimulationRequest } from './simulation-request';

/**
 * Throws AppError validation_failed when a statistic of the result is not a finite number. The engine refuses
 * these itself; this guard keeps a NaN (which JSON carries as null) out of the runs table and the answer even
 * from an engine that does not.
 */
export function assertFiniteResult(request: SimulationRequest, result: EngineResult): void {
  if (isAllFinite(result)) return;
  const path = firstNonFinite(result, '') ?? '';
  const action = /^actions\[(\d+)\]/.exec(path);
  const field = action ? modelField(request, Number(action[1])) : 'scenario';
  throw AppError.validation(
    [
      {
        field,
        problem: `its values are too large: the statistic ${path} is not a finite number; scale the model down`,
      },
    ],
    `The statistic ${path} of the simulation is not a finite number: the values overflow a double.`,
  );
}

/** The common case without the paths `firstNonFinite` builds for every value it passes. */
function isAllFinite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return true;
  if (value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isAllFinite(value[i])) return false;
    return true;
  }
  for (const key in value) if (!isAllFinite((value as Record<string, unknown>)[key])) return false;
  return true;
}

function firstNonFinite(value: unknown, path: string): string | undefined {
  if (value === null || (typeof value === 'number' && !Number.isFinite(value))) return path;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstNonFinite(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
  } else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = firstNonFinite(item, path === '' ? key : `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The request field whose model computes the action at this index (the wire names of DESIGN.md §5). */
function modelField(request: SimulationRequest, index: number): string {
  const { scenario } = request;
  if (scenario.actions?.[index]?.model !== undefined) return `scenario.actions[${index}].model`;
  return scenario.model !== undefined ? 'scenario.model' : 'scenario.variables';
}
