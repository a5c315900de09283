export { API_ERRORS, ApiErrors } from './api-errors.decorator';
export { ContractComponent, contractComponents } from './contract-component.decorator';
export { ErrorBodyDto, ErrorDetailDto } from './error-body.dto';
