import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { Principal } from '../access/principal';
import { DatasetsService } from './datasets.service';
import { FormulaDto } from './datasets.dto';

/** `PUT /v1/data/{id}/formulas`: derived columns in the engine's expression language, translated to SQL. */
@Injectable()
export class FormulasService {
  constructor(private readonly datasets: DatasetsService) {}

  async set(principal: Principal, id: string, formulas: readonly FormulaDto[]): Promise<object> {
    await this.datasets.ownedForUpdate(principal, id);
    if (formulas.length > 0) throw new AppError('validation_failed', 'Formulas are not available yet.');
    return this.datasets.schema(principal, id);
  }
}
