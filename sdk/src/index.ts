export { DecisionService, DecisionClient } from './client';
export type { ClientOptions, FetchFunction } from './options';
export {
  API_KEY_VARIABLES,
  BASE_URL_VARIABLES,
  CA_FILE_VARIABLE,
  DEVICE_ID_VARIABLES,
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
} from './options';
export type { RequestOptions } from './transport';
export {
  APIError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  ValidationError,
  RateLimitError,
  EngineUnavailableError,
  DeviceBindingError,
  APIConnectionError,
  APIConnectionTimeoutError,
  DEVICE_BINDING_CODES,
} from './errors';
export type { FieldProblem } from './errors';
export { FileBindingStore, MemoryBindingStore } from './binding-store';
export type { BindingStore } from './binding-store';
export type { DeviceIdentity } from './device';
export { PagedList } from './pagination';
export { verifyWebhook, WebhookVerificationError, DEFAULT_WEBHOOK_TOLERANCE_S } from './webhooks';
export type { VerifyWebhookOptions, WebhookHeaders } from './webhooks';
export { JobWaitTimeoutError, FINISHED_JOB_STATES } from './resources/jobs';
export type { WaitOptions } from './resources/jobs';
export type { ListQuery } from './resources/connectors';
export type { DataListQuery } from './resources/data';
export type { DeliveriesQuery } from './resources/webhooks';
export { SDK_VERSION } from './version';
export { fetchTrusting, readCaFile } from './trusting-fetch';
export type { JsonObject } from './types';
export type { OperationId, Page, PageItem, QueryOf, RequestBody, ResponseBody } from './contract-types';
export type { components, operations, paths } from './generated/openapi';

import { DecisionService } from './client';
export default DecisionService;
