import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import {
  FamilyNotApplicable,
  FIT_FAMILIES,
  FitFamily,
  fitCandidates,
  fitFamily,
  FittedFamily,
  sampleOf,
} from '../../common/statistics/distribution-fit';
import { spearman } from '../../common/statistics/rank-correlation';
import {
  FitCandidateResponse,
  FitRequest,
  FitResponse,
  MAX_FIT_VALUES,
  MIN_FIT_VALUES,
} from './data-fit.dto';
import { NumericColumns, QueryService } from './query.service';

export interface ColumnSource {
  readonly dataset_id: string;
  readonly column: string;
  readonly where?: readonly unknown[];
}

export interface SourceProvenance {
  readonly dataset_id: string;
  readonly dataset_name: string;
  readonly version: number;
  readonly column: string;
  readonly where: readonly unknown[];
  readonly rows_used: number;
  readonly rows_matching: number;
  readonly sampled: boolean;
}

export type ResolvedColumn =
  | {
      readonly source: SourceProvenance;
      readonly distribution: FitFamily;
      readonly params: Readonly<Record<string, number>>;
      readonly fit: { readonly aic: number; readonly ks_statistic: number };
    }
  | {
      readonly source: SourceProvenance;
      readonly distribution: 'empirical';
      readonly values: Float64Array;
    };

@Injectable()
export class DataFitService {
  constructor(private readonly queries: QueryService) {}

  async fit(orgId: string, datasetId: string, request: FitRequest): Promise<FitResponse> {
    const read = await this.read(orgId, { dataset_id: datasetId, ...request }, [request.column]);
    const families = request.families ?? FIT_FAMILIES;
    const candidates = this.candidates(families, read.values[0], 'families');
    const source = provenance(read, request.column);
    return {
      dataset_id: source.dataset_id,
      dataset_name: source.dataset_name,
      version: source.version,
      column: source.column,
      where: source.where,
      n: source.rows_used,
      rows_matching: source.rows_matching,
      sampled: source.sampled,
      candidates: candidates.map(toCandidate),
      best: toCandidate(candidates[0]),
    };
  }

  async resolve(
    orgId: string,
    source: ColumnSource,
    distribution: 'fit' | 'empirical' | FitFamily,
  ): Promise<ResolvedColumn> {
    const read = await this.read(orgId, source, [source.column]);
    const values = read.values[0];
    const provenanceOf = provenance(read, source.column);
    if (distribution === 'empirical') {
      return { source: provenanceOf, distribution, values };
    }
    const [best] = this.candidates(
      distribution === 'fit' ? FIT_FAMILIES : [distribution],
      values,
      'distribution',
    );
    return {
      source: provenanceOf,
      distribution: best.family,
      params: best.params,
      fit: { aic: best.aic, ks_statistic: best.ksStatistic },
    };
  }

  async rankCorrelation(
    orgId: string,
    source: Omit<ColumnSource, 'column'>,
    a: string,
    b: string,
  ): Promise<number> {
    const read = await this.read(orgId, { ...source, column: a }, [a, b]);
    return spearman(read.values[0], read.values[1]);
  }

  private async read(
    orgId: string,
    source: ColumnSource,
    columns: readonly string[],
  ): Promise<NumericColumns> {
    const read = await this.queries.numericColumns(
      orgId,
      source.dataset_id,
      columns,
      source.where,
      MAX_FIT_VALUES,
    );
    if (read.values[0].length < MIN_FIT_VALUES) throw insufficient(read.values[0].length);
    return read;
  }

  private candidates(families: readonly FitFamily[], values: Float64Array, field: string): FittedFamily[] {
    const sample = sampleOf(values);
    if (families.length === 1) {
      try {
        return [fitFamily(families[0], sample)];
      } catch (error) {
        if (error instanceof FamilyNotApplicable) throw notApplicable(error, field);
        throw error;
      }
    }
    const fits = fitCandidates(families, sample);
    if (fits.length > 0) return fits;
    try {
      fitFamily(families[0], sample);
    } catch (error) {
      if (error instanceof FamilyNotApplicable) throw notApplicable(error, field);
      throw error;
    }
    return fits;
  }
}

function provenance(read: NumericColumns, column: string): SourceProvenance {
  return {
    dataset_id: read.datasetId,
    dataset_name: read.datasetName,
    version: read.version,
    column,
    where: read.where,
    rows_used: read.values[0].length,
    rows_matching: read.rowsMatching,
    sampled: read.sampled,
  };
}

function toCandidate(fit: FittedFamily): FitCandidateResponse {
  return { family: fit.family, params: { ...fit.params }, aic: fit.aic, ks_statistic: fit.ksStatistic };
}

function insufficient(count: number): AppError {
  return new AppError(
    'insufficient_data',
    `The column has ${count} non-null value${count === 1 ? '' : 's'} under the conditions; at least ${MIN_FIT_VALUES} are needed.`,
  );
}

/** A sample with no spread cannot be fitted at all (too little data); one outside a family's support is a bad choice. */
function notApplicable(error: FamilyNotApplicable, field: string): AppError {
  if (error.isConstant) {
    return new AppError('insufficient_data', `The column's values are all the same: ${error.message}.`);
  }
  return AppError.validation([{ field, problem: `${error.message}; the column cannot be fitted by it` }]);
}
