export { ErrorFilter } from './error.filter';
export { requestIdFor } from './request-id';
export { createValidationPipe } from './validation.pipe';
export { RouteMetadata } from './route-metadata';
export { ACCEPTS_ANY_BODY, installBodyParsers } from './body-parsers';
export { answerClientError, answerFrameworkError } from './framework-errors';
export { installLingeringClose } from './lingering-close';
export { installMethodNotAllowed } from './method-not-allowed';
