import { FileBindingStore } from './binding-store';
import type { DeviceIdentity } from './device';
import { resolveOptions, type ClientOptions } from './options';
import { ApiKeys } from './resources/api-keys';
import { Connectors } from './resources/connectors';
import { Data } from './resources/data';
import { Devices } from './resources/devices';
import { ExecutionPolicy } from './resources/execution-policy';
import { Jobs } from './resources/jobs';
import { ProviderKeys } from './resources/provider-keys';
import { Triggers } from './resources/triggers';
import { Webhooks } from './resources/webhooks';
import { Transport, type RequestOptions } from './transport';
import type { RequestBody, ResponseBody } from './contract-types';

/**
 * The Decision Service client. Every option falls back to the environment (SERVICE_API_KEY, SERVICE_BASE_URL,
 * SERVICE_DEVICE_ID and their legacy names), so `new DecisionService()` works where those are set.
 */
export class DecisionService {
  readonly apiKeys: ApiKeys;
  readonly devices: Devices;
  readonly providerKeys: ProviderKeys;
  readonly connectors: Connectors;
  readonly data: Data;
  readonly jobs: Jobs;
  readonly triggers: Triggers;
  readonly executionPolicy: ExecutionPolicy;
  readonly webhooks: Webhooks;
  private readonly transport: Transport;

  constructor(options: ClientOptions = {}) {
    const resolved = resolveOptions(options, process.env);
    this.transport = new Transport(resolved, options.bindingStore ?? new FileBindingStore());
    this.apiKeys = new ApiKeys(this.transport);
    this.devices = new Devices(this.transport);
    this.providerKeys = new ProviderKeys(this.transport);
    this.connectors = new Connectors(this.transport);
    this.data = new Data(this.transport);
    this.jobs = new Jobs(this.transport);
    this.triggers = new Triggers(this.transport);
    this.executionPolicy = new ExecutionPolicy(this.transport);
    this.webhooks = new Webhooks(this.transport);
  }

  /** The service root this client talks to. */
  get baseURL(): string {
    return this.transport.baseURL;
  }

  /** The device headers this client sends (the id is derived from the machine unless pinned). */
  get device(): DeviceIdentity {
    return this.transport.device();
  }

  /** GET /v1/me: the organization, and the key or user, behind the credential. */
  me(options?: RequestOptions): Promise<ResponseBody<'Me_me'>> {
    return this.transport.request({ method: 'GET', path: '/v1/me', options });
  }

  /** POST /v1/simulate: a Monte Carlo run and its recommendation (`engine_mode` says which engine path served it). */
  simulate(
    body: RequestBody<'Simulation_simulate'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Simulation_simulate'>> {
    return this.transport.request({ method: 'POST', path: '/v1/simulate', body, options });
  }

  /** GET /v1/health: liveness. */
  health(options?: RequestOptions): Promise<ResponseBody<'Health_health'>> {
    return this.transport.request({ method: 'GET', path: '/v1/health', options });
  }

  /** GET /v1/infrastructure: engine mode and version, the authoritative engine signal. */
  infrastructure(options?: RequestOptions): Promise<ResponseBody<'Infrastructure_report'>> {
    return this.transport.request({ method: 'GET', path: '/v1/infrastructure', options });
  }

  /** GET /v1/license: edition, status, entitlements and caps. */
  license(options?: RequestOptions): Promise<ResponseBody<'Licensing_show'>> {
    return this.transport.request({ method: 'GET', path: '/v1/license', options });
  }

  /** GET /v1/admin/privacy-report: the signed cloud-free report (operator admins). */
  privacyReport(options?: RequestOptions): Promise<ResponseBody<'Privacy_report'>> {
    return this.transport.request({ method: 'GET', path: '/v1/admin/privacy-report', options });
  }
}

/**
 * @deprecated Use {@link DecisionService}; `DecisionClient` is the legacy name of the same class.
 */
export const DecisionClient = DecisionService;
/** @deprecated Use {@link DecisionService}. */
export type DecisionClient = DecisionService;
