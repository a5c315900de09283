import { Injectable } from '@nestjs/common';
import { isStoreUnavailable, toAppError } from '../../common/errors';
import { parseWire } from '../../common/validation';
import { QueryRequest } from '../query/query.dto';
import { QueryService } from '../query/query.service';
import { Trigger } from './trigger.entity';
import { parseCondition, queryBodyOf, StoredCondition, StoredSource } from './trigger-definition';
import { Reading, valueOf } from './trigger-evaluation';
import { compare } from './triggers.types';

type QuerySource = Extract<StoredSource, { kind: 'query' }>;

type QueryRun = { readonly rows: readonly Record<string, unknown>[] } | { readonly error: string };

function compared(condition: StoredCondition, run: QueryRun): Reading {
  if ('error' in run) return { kind: 'error', message: run.error };
  const { source } = condition;
  if (source.kind !== 'query') return { kind: 'no_data' };
  const value = valueOf(run.rows, source.value.column, source.value.aggregate);
  if (value === undefined) return { kind: 'no_data' };
  return { kind: 'value', value, conditionMet: compare(value, condition.operator, condition.threshold) };
}

@Injectable()
export class TriggerReader {
  constructor(private readonly queries: QueryService) {}

  async read(trigger: Trigger, pushed?: number): Promise<Reading> {
    const condition = parseCondition(trigger.condition);
    if (pushed !== undefined) {
      return {
        kind: 'value',
        value: pushed,
        conditionMet: compare(pushed, condition.operator, condition.threshold),
      };
    }
    const { source } = condition;
    if (source.kind !== 'query') return { kind: 'no_data' };
    return compared(condition, await this.run(trigger.orgId, source));
  }

  // Triggers of one organization with the same query share one run of it: their slots have all come, so one run now is
  // what each would have read alone.
  sharing(): (trigger: Trigger) => Promise<Reading> {
    const runs = new Map<string, Promise<QueryRun>>();
    return async (trigger) => {
      const condition = parseCondition(trigger.condition);
      const { source } = condition;
      if (source.kind !== 'query') return { kind: 'no_data' };
      const key = `${trigger.orgId}\u0000${source.dataset_id}\u0000${JSON.stringify(source.query)}`;
      let run = runs.get(key);
      if (!run) {
        run = this.run(trigger.orgId, source);
        runs.set(key, run);
      }
      return compared(condition, await run);
    };
  }

  private async run(orgId: string, source: QuerySource): Promise<QueryRun> {
    try {
      const request = parseWire(QueryRequest, queryBodyOf(source));
      return { rows: (await this.queries.query({ orgId }, request)).rows };
    } catch (error) {
      // Not the condition's fault: the evaluation is abandoned and runs again once the database is back.
      if (isStoreUnavailable(error)) throw error;
      const appError = toAppError(error);
      return { error: `${appError.code}: ${appError.message}`.slice(0, 500) };
    }
  }
}
