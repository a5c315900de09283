import { Injectable } from '@nestjs/common';
import { isStoreUnavailable, toAppError } from '../../common/errors';
import { parseWire } from '../../common/validation';
import { QueryRequest } from '../query/query.dto';
import { QueryService } from '../query/query.service';
import { Trigger } from './trigger.entity';
import { parseCondition, queryBodyOf } from './trigger-definition';
import { Reading, valueOf } from './trigger-evaluation';
import { compare } from './triggers.types';

/** Reads a trigger's current value (its query, or the value pushed) and compares it with the threshold. */
@Injectable()
export class TriggerReader {
  constructor(private readonly queries: QueryService) {}

  async read(trigger: Trigger, pushed?: number): Promise<Reading> {
    const condition = parseCondition(trigger.condition);
    const met = (value: number): Reading => ({
      kind: 'value',
      value,
      conditionMet: compare(value, condition.operator, condition.threshold),
    });
    if (pushed !== undefined) return met(pushed);
    const { source } = condition;
    if (source.kind !== 'query') return { kind: 'no_data' };
    try {
      const request = parseWire(QueryRequest, queryBodyOf(source));
      const result = await this.queries.query({ orgId: trigger.orgId }, request);
      const value = valueOf(result.rows, source.value.column, source.value.aggregate);
      return value === undefined ? { kind: 'no_data' } : met(value);
    } catch (error) {
      // Not the condition's fault: the evaluation is abandoned and runs again once the database is back.
      if (isStoreUnavailable(error)) throw error;
      const appError = toAppError(error);
      return { kind: 'error', message: `${appError.code}: ${appError.message}`.slice(0, 500) };
    }
  }
}
