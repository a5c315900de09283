import { AppError, ErrorDetail } from '../../common/errors';
import { normalizeConfigClass } from './config-fields';
import {
  ConnectorDescriptor,
  ConnectorFamily,
  RequestedType,
  SELECTION_FIELDS,
  SelectionField,
} from './connector-descriptor';
import { CONNECTORS } from './drivers';

type Registered = (typeof CONNECTORS)[number];
export type ConnectorType = Registered['name'];
type DescriptorOf<K extends ConnectorType> = Extract<Registered, { readonly name: K }>;

export type ConnectorConfigMap = {
  [K in ConnectorType]: DescriptorOf<K> extends ConnectorDescriptor<K, infer C> ? C : never;
};

export type NormalizedConfig = {
  [K in ConnectorType]: { readonly type: K; readonly values: ConnectorConfigMap[K] };
}[ConnectorType];

export const CONNECTOR_TYPES: readonly ConnectorType[] = CONNECTORS.map((descriptor) => descriptor.name);

const BY_NAME: ReadonlyMap<string, ConnectorDescriptor> = new Map(
  CONNECTORS.map((descriptor) => [descriptor.name, descriptor as ConnectorDescriptor]),
);

interface Alias extends RequestedType {
  readonly type: ConnectorType;
}

const ALIASES: ReadonlyMap<string, Alias> = new Map(
  CONNECTORS.flatMap((descriptor) =>
    (descriptor.aliases ?? []).map((alias) => [
      alias.name,
      { type: descriptor.name, fileType: alias.fileType },
    ]),
  ),
);

export const ACCEPTED_TYPE_NAMES: readonly string[] = [...CONNECTOR_TYPES, ...ALIASES.keys()];

export function isConnectorType(value: string): value is ConnectorType {
  return BY_NAME.has(value);
}

export function descriptorOf(type: ConnectorType): ConnectorDescriptor {
  const descriptor = BY_NAME.get(type);
  if (descriptor === undefined) throw new Error(`connector type ${type} is not registered`);
  return descriptor;
}

export function typesOfFamily(family: ConnectorFamily): ReadonlySet<ConnectorType> {
  return new Set(CONNECTORS.filter((descriptor) => descriptor.family === family).map((d) => d.name));
}

export const SQL_TYPES = typesOfFamily('sql');
export const OBJECT_STORE_TYPES = typesOfFamily('object_store');

export interface ResolvedType extends RequestedType {
  readonly type: ConnectorType;
  readonly provider?: string;
}

/** Case, hyphens and aliases are forgiven; anything else is 422 invalid_type listing the valid set. */
export function resolveConnectorType(requested: unknown): ResolvedType {
  const name = typeof requested === 'string' ? requested.trim().toLowerCase().replace(/-/g, '_') : '';
  const alias = ALIASES.get(name);
  const type = alias?.type ?? (isConnectorType(name) ? name : undefined);
  if (type === undefined) {
    const shown = typeof requested === 'string' ? `"${requested}"` : 'missing';
    throw new AppError(
      'invalid_type',
      `Unknown connector_type ${shown}. Valid types: ${ACCEPTED_TYPE_NAMES.join(', ')}.`,
      [{ field: 'connector_type', problem: `must be one of ${ACCEPTED_TYPE_NAMES.join(', ')}` }],
    );
  }
  return { type, fileType: alias?.fileType, provider: descriptorOf(type).provider };
}

export function normalizeConfig(resolved: ResolvedType, raw: unknown): NormalizedConfig {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw AppError.validation([{ field: 'config', problem: 'must be an object' }]);
  }
  const values = normalizeConfigClass(
    descriptorOf(resolved.type).config,
    (raw ?? {}) as Record<string, unknown>,
    resolved,
  );
  return { type: resolved.type, values } as NormalizedConfig;
}

export function selectionProblems(
  type: string,
  given: Readonly<Partial<Record<SelectionField, unknown>>>,
): ErrorDetail[] {
  const descriptor = isConnectorType(type) ? descriptorOf(type) : undefined;
  const wanted = descriptor?.selection ?? {};
  const oneOf = descriptor?.selectionOneOf ?? [];
  const givenOneOf = oneOf.filter((field) => given[field] !== undefined);
  const choice: ErrorDetail[] =
    oneOf.length === 0 || givenOneOf.length === 1
      ? []
      : [
          {
            field: givenOneOf[1] ?? oneOf[0],
            problem: `give exactly one of ${oneOf.join(', ')} for ${type} connectors`,
          },
        ];
  return [
    ...choice,
    ...SELECTION_FIELDS.flatMap((field): ErrorDetail[] => {
      const present = given[field] !== undefined;
      if (present && wanted[field] === undefined) {
        return [{ field, problem: `does not apply to ${type} connectors` }];
      }
      if (!present && wanted[field] === 'required') {
        return [{ field, problem: `is required for ${type} connectors` }];
      }
      return [];
    }),
  ];
}
