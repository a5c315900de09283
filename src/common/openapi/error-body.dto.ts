import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CATALOGUE } from '../errors/catalogue';

export class ErrorDetailDto {
  @ApiProperty({
    description: 'The request field at fault, as a dotted path.',
    example: 'scenario.variables.price.low',
  })
  field!: string;

  @ApiProperty({ description: 'What is wrong with it.', example: 'must be a finite number' })
  problem!: string;
}

export class ErrorObjectDto {
  @ApiProperty({
    description: 'Stable snake_case code from the error catalogue.',
    enum: Object.keys(ERROR_CATALOGUE),
  })
  code!: string;

  @ApiProperty({ description: 'A sentence for people; never parse it.' })
  message!: string;

  @ApiProperty({ description: 'Also sent as the X-Request-Id header.' })
  request_id!: string;

  @ApiPropertyOptional({
    type: [ErrorDetailDto],
    description: 'One entry per invalid field (validation_failed).',
  })
  details?: ErrorDetailDto[];
}

export class ErrorBodyDto {
  @ApiProperty({ type: ErrorObjectDto })
  error!: ErrorObjectDto;
}
