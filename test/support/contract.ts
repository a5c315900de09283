import { readFileSync } from 'node:fs';
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_CATALOGUE, ErrorCode } from '../../src/common/errors';
import { CONTRACT_FILE } from '../../src/modules/contract/contract-file';

/** What the checker needs of an answer: `HttpResult` from test-app fits, so does anything with these fields. */
export interface ContractCheckedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

type JsonObject = Record<string, any>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const document = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as JsonObject;
// strict: false because OpenAPI adds annotation keywords (example, xml, discriminator...) JSON Schema lacks.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

/**
 * Fails (throws, with every mismatch) unless `res` is an answer the committed contract documents for `operation`,
 * written as `METHOD /path/{template}` exactly as the document spells it, e.g. `GET /v1/device/{registrationId}`:
 * its status is listed (an error status may fall under `default`, and an error code must be one its catalogue
 * status allows), its content type is one the response declares, and its body
 * validates against that response's schema (JSON bodies as parsed, text bodies as the string).
 */
export function expectMatchesContract(res: ContractCheckedResponse, operation: string): void {
  const problems = contractProblems(res, operation);
  if (problems.length > 0) {
    throw new Error(
      `${operation} answered ${res.status} outside the contract:\n  ${problems.join('\n  ')}\n` +
        `body: ${res.text.slice(0, 2000)}`,
    );
  }
}

/** The reasons `res` does not match the contract of `operation`; empty when it does. */
export function contractProblems(res: ContractCheckedResponse, operation: string): string[] {
  const responses = operationOf(operation).responses as Record<string, JsonObject>;
  const isError = res.status >= 400;
  const statusKey = [String(res.status), `${String(res.status)[0]}XX`, ...(isError ? ['default'] : [])].find(
    (k) => k in responses,
  );
  if (statusKey === undefined) return [`status ${res.status} is not documented`];
  const code = errorCodeOf(res.body);
  if (
    code !== undefined &&
    code in ERROR_CATALOGUE &&
    ERROR_CATALOGUE[code as ErrorCode].status !== res.status
  ) {
    return [
      `error ${code} belongs with status ${ERROR_CATALOGUE[code as ErrorCode].status}, not ${res.status}`,
    ];
  }
  const response = responses[statusKey];
  const content = response.content as Record<string, JsonObject> | undefined;
  if (content === undefined) {
    // Without content, a response is bodiless when it says so (a 204, or any description) or else not typed yet.
    const isBodiless = res.status === 204 || (response.description ?? '') !== '';
    return isBodiless && res.text.length > 0 ? [`status ${res.status} documents no body, but one came`] : [];
  }
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!(mediaType in content)) {
    return [`content type "${mediaType}" is not one of ${Object.keys(content).join(', ')}`];
  }
  const schema = content[mediaType].schema as JsonObject | undefined;
  if (schema === undefined) return [`${statusKey} ${mediaType} has no schema to check the body against`];
  const validate = validatorFor(`${operation} ${statusKey} ${mediaType}`, schema);
  const value = mediaType.endsWith('json') ? res.body : res.text;
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${paramsOf(e)}`,
  );
}

/** Whether the contract gives `operation`'s `status` answer a body schema (many answers are not detailed yet). */
export function documentsBody(operation: string, status: number): boolean {
  const response = (operationOf(operation).responses as Record<string, JsonObject>)[String(status)];
  return response?.content !== undefined;
}

/**
 * The operation (`METHOD /template`) the contract routes `method url` to, or undefined for a path it does not
 * have. A literal path wins over a template that also matches (`/v1/device/list` over `/v1/device/{id}`).
 */
export function operationFor(method: string, url: string): string | undefined {
  const path = url.split('?')[0];
  const lower = method.toLowerCase();
  const candidates = Object.keys(document.paths as JsonObject).filter(
    (template) => (document.paths as Record<string, JsonObject>)[template][lower] !== undefined,
  );
  const exact = candidates.find((template) => template === path);
  const templated = candidates
    .filter((template) => template.includes('{'))
    .filter((template) => templateRegExp(template).test(path))
    .sort((a, b) => (a.match(/\{/g) ?? []).length - (b.match(/\{/g) ?? []).length);
  const found = exact ?? templated[0];
  return found === undefined ? undefined : `${method.toUpperCase()} ${found}`;
}

function templateRegExp(template: string): RegExp {
  const pattern = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}$`);
}

function operationOf(operation: string): JsonObject {
  const [method, path, ...rest] = operation.split(' ');
  const lower = (method ?? '').toLowerCase();
  if (rest.length > 0 || path === undefined || !HTTP_METHODS.includes(lower)) {
    throw new Error(`"${operation}" is not "METHOD /path" (e.g. "GET /v1/me")`);
  }
  const found = (document.paths as Record<string, JsonObject>)[path]?.[lower] as JsonObject | undefined;
  if (found === undefined) throw new Error(`the contract has no operation ${operation}`);
  return found;
}

function validatorFor(key: string, schema: JsonObject): ValidateFunction {
  let validate = compiled.get(key);
  if (validate === undefined) {
    // The response schema refers to #/components/...; giving it the document's components resolves them in place.
    validate = ajv.compile({ ...schema, components: document.components });
    compiled.set(key, validate);
  }
  return validate;
}

function errorCodeOf(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown } } | null | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

function paramsOf(error: { params?: Record<string, unknown> }): string {
  const params = error.params ?? {};
  return Object.keys(params).length === 0 ? '' : JSON.stringify(params);
}
