export { API_ERRORS, ApiErrors } from './api-errors.decorator';
export { ErrorBodyDto, ErrorDetailDto, ErrorObjectDto } from './error-body.dto';
