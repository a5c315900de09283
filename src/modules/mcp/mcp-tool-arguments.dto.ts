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
import { ContractComponent } from '../../common/openapi';

/**
 * The arguments of the tools that wrap a route without a body (a path parameter, a query string, the runtime
 * socket). The tools that wrap a body take the route's own request class.
 */

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
