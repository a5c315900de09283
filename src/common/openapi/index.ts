export { API_ERRORS, ApiErrors } from './api-errors.decorator';
export { ContractComponent, contractComponents } from './contract-component.decorator';
export { ErrorBodyDto } from './error-body.dto';
