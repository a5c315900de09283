import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import * as classTransformer from 'class-transformer';
import {
  isPlainObject,
  NOT_AN_OBJECT,
  toDto,
  validationFailure,
  WIRE_VALIDATOR_OPTIONS,
} from '../validation';

class WireValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const checked =
      metadata.type === 'body' && metadata.metatype !== undefined && metadata.metatype !== Object;
    if (checked && value !== undefined && !isPlainObject(value)) throw NOT_AN_OBJECT();
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

export function createValidationPipe(): ValidationPipe {
  return new WireValidationPipe({
    ...WIRE_VALIDATOR_OPTIONS,
    transform: true,
    // toDto in place of plainToInstance, so a body's raw fields (see RawField) are read as everywhere else.
    transformerPackage: { ...classTransformer, plainToInstance: toDto } as typeof classTransformer,
    exceptionFactory: validationFailure,
  });
}
