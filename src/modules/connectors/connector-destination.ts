import { AppError } from '../../common/errors';
import { parseUrl } from './connector-config';
import { maskEmbedded, MASK } from './connector-secrets';
import { descriptorOf, NormalizedConfig } from './connector-types';

/** Types whose fields the spec leaves open: any field named like an address decides the destination. */
const OPEN_DESTINATION_NAME =
  /host|port|ur[il]|endpoint|server|address|node|account|cloud|domain|dsn|connection/i;

/** A URL counts by its origin (a new path on the same server is not a new destination); a DSN without its secrets. */
function destinationValue(field: string, value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value ?? null);
  if (/url$/.test(field)) {
    const url = parseUrl(value);
    if (url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:')) return url.origin;
  }
  return maskEmbedded(value);
}

function destinationFields(config: NormalizedConfig): readonly string[] {
  const descriptor = descriptorOf(config.type);
  if (!descriptor.openConfig) return descriptor.destinationFields;
  return Object.keys(config.values).filter((name) => OPEN_DESTINATION_NAME.test(name));
}

export function changedDestination(before: NormalizedConfig, after: NormalizedConfig): string[] {
  const names = new Set([...destinationFields(before), ...destinationFields(after)]);
  const values = (config: NormalizedConfig): Record<string, unknown> =>
    config.values as Record<string, unknown>;
  return [...names].filter(
    (name) => destinationValue(name, values(before)[name]) !== destinationValue(name, values(after)[name]),
  );
}

export function maskedFields(incoming: Readonly<Record<string, unknown>>, prefix = ''): string[] {
  return Object.entries(incoming).flatMap(([name, value]) => {
    if (typeof value === 'string') return value.includes(MASK) ? [`${prefix}${name}`] : [];
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && prefix === '') {
      return maskedFields(value as Record<string, unknown>, `${name}.`);
    }
    return [];
  });
}

/**
 * A change that moves the destination must not carry kept secrets along (an editor could point it at their own
 * server); every masked value sent back is named so the caller re-enters it.
 */
export function assertSecretsFollowDestination(
  incoming: Readonly<Record<string, unknown>>,
  before: NormalizedConfig,
  after: NormalizedConfig,
): void {
  const kept = maskedFields(incoming);
  if (kept.length === 0) return;
  const moved = changedDestination(before, after);
  if (moved.length === 0) return;
  const changed = moved.map((field) => `config.${field}`).join(', ');
  throw AppError.validation(
    kept.map((field) => ({
      field: `config.${field}`,
      problem: `must be re-entered: the destination changed (${changed}) and stored secrets are not sent to a new destination`,
    })),
    `The destination changed (${changed}): re-enter ${kept.map((f) => `config.${f}`).join(', ')}; stored secrets are never sent to a new destination.`,
  );
}
