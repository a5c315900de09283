import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from '../errors';

function flatten(errors: readonly ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((problem) => ({ field, problem }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** class-validator on every body/query DTO; unknown fields are refused, failures become 422 validation_failed. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return AppError.validation(details.length > 0 ? details : [{ field: 'body', problem: 'is invalid' }]);
    },
  });
}
