export { ErrorFilter, sendError } from './error.filter';
export { requestIdFor } from './request-id';
export { createValidationPipe } from './validation.pipe';
export { RouteMetadata } from './route-metadata';
export { ACCEPTS_ANY_BODY, exceedsJsonDepth, installBodyParsers } from './body-parsers';
export { answerClientError, answerFrameworkError } from './framework-errors';
