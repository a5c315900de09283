// The relative path resolves from src/ and dist/ alike; the .deb ships sdk/dist beside dist/.
export {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BASE_URL_VARIABLES,
  API_KEY_VARIABLES,
  CA_FILE_VARIABLE,
  DEFAULT_BASE_URL,
  DecisionService,
  DeviceBindingError,
  fetchTrusting,
  EngineUnavailableError,
  JobWaitTimeoutError,
  PagedList,
  PermissionDeniedError,
  RateLimitError,
  readCaFile,
} from '../../../sdk/dist/index';
export type { FetchFunction } from '../../../sdk/dist/index';
