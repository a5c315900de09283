import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import {
  Allow,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_PAGE_LIMIT } from '../../common/http/cursor-page';
import { ContractComponent } from '../../common/openapi';
import { FiniteNumber, IfPresent } from '../../common/validation';
import { FitRequest } from '../query/data-fit.dto';
import { ReportOutcomeDto } from '../triggers/triggers.dto';

@ContractComponent()
export class NoToolArguments {}

@ContractComponent()
export class ListDataArguments {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @ApiPropertyOptional({ maxLength: 200, description: 'Words matched against dataset names and columns.' })
  search?: string;

  @IsOptional()
  @IsBoolean()
  @ApiPropertyOptional({ description: 'Only id, name and row count per dataset.' })
  compact?: boolean;
}

@ContractComponent()
export class DatasetArguments {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  @ApiProperty({ minLength: 1, maxLength: 128, description: 'Dataset id, as returned by list_data.' })
  dataset_id!: string;
}

/** `POST /v1/data/{id}/fit` with its path parameter among the arguments. */
@ContractComponent()
export class FitDistributionArguments extends FitRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  @ApiProperty({ minLength: 1, maxLength: 128, description: 'Dataset id, as returned by list_data.' })
  dataset_id!: string;
}

@ContractComponent()
export class ListTriggersArguments {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_LIMIT)
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
    description: 'Page size, default 50.',
  })
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  @ApiPropertyOptional({ maxLength: 256, description: 'next_cursor of the previous page.' })
  cursor?: string;
}

@ContractComponent()
export class FireTriggerArguments {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  @ApiProperty({
    minLength: 1,
    maxLength: 128,
    description: 'Trigger id (trg_…), as returned by list_triggers.',
  })
  trigger_id!: string;

  @IfPresent()
  @FiniteNumber()
  @ApiPropertyOptional({
    type: 'number',
    description: 'The value to test: required for a push source, overrides the query of a query source.',
  })
  current_value?: number;
}

/** `POST /v1/triggers/{id}/fires/{fire_id}/outcome`: the path's ids beside the route's own body. */
@ContractComponent()
export class ReportOutcomeArguments extends ReportOutcomeDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  @ApiProperty({ minLength: 1, maxLength: 128, description: 'Trigger id (trg_…).' })
  trigger_id!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  @ApiProperty({
    minLength: 1,
    maxLength: 128,
    description: 'Fire id (fire_…), as fire_trigger answered it.',
  })
  fire_id!: string;
}

@ContractComponent()
export class ListLibrariesArguments {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @ApiPropertyOptional({ maxLength: 200, description: 'Words matched against module and function names.' })
  search?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    description: 'Most libraries to return after filtering.',
  })
  limit?: number;
}

@ContractComponent()
export class ExecuteLibraryArguments {
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'finance' })
  module!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'npv' })
  function!: string;

  @IsOptional()
  @Allow()
  @ApiPropertyOptional({
    description: 'Named arguments (an object), positional ones (an array), a scalar or null.',
    oneOf: ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) => ({ type })),
    example: { rate: 0.08, cashflows: [-1000, 300, 400, 500] },
  })
  args?: unknown;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  @ApiPropertyOptional({ maxLength: 200 })
  request_id?: string;
}
