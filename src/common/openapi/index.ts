export { API_ERRORS, ApiErrors } from './api-errors.decorator';
export { ErrorBodyDto } from './error-body.dto';
