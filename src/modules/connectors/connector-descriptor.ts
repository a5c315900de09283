import { ApiSchema } from '@nestjs/swagger';
import type { ClassConstructor } from 'class-transformer';
import type { ConnectorConfig } from './config-fields';
export type { RequestedType } from './config-fields';
import type { ConnectorDriver } from './connector-driver';
import type { FileType } from './file-types';

/**
 * What kind of source a type is. `/v1/data/connect` accepts a family name as `connection_type` (`database`,
 * `object_store`...) and SQL types need a table or query there.
 */
export const CONNECTOR_FAMILIES = [
  'sql',
  'object_store',
  'api',
  'file',
  'graph',
  'key_value',
  'search',
  'repository',
] as const;
export type ConnectorFamily = (typeof CONNECTOR_FAMILIES)[number];

/** The `/v1/data/connect` fields beyond SQL's table/query that say what a type reads. */
export const SELECTION_FIELDS = ['pattern', 'max_keys', 'path', 'ref', 'index', 'label', 'cypher'] as const;
export type SelectionField = (typeof SELECTION_FIELDS)[number];

/** Another accepted name of a type; a file-format alias (csv, xlsx...) also presets the config's `file_type`. */
export interface TypeAlias {
  readonly name: string;
  readonly fileType?: FileType;
}

/**
 * Everything the service knows about one connector type, in the type's own file (drivers/<type>.ts), registered
 * with one line in drivers/index.ts. The type list, aliases, `GET /v1/connectors/types`, the config's validation,
 * normalisation and contract schema, masking and the destination check are all derived from these.
 */
export interface ConnectorDescriptor<N extends string = string, C = unknown> {
  readonly name: N;
  readonly family: ConnectorFamily;
  readonly aliases?: readonly TypeAlias[];
  /** Stored beside the type where the spec names one (azure → azure_blob). */
  readonly provider?: string;
  /**
   * The config class (config-fields.ts decorators): its fields validate a config, name its problems, give the
   * defaults, aliases and secrets, and describe it in the contract and in `GET /v1/connectors/types`.
   */
  readonly config: ClassConstructor<ConnectorConfig<C>>;
  /**
   * The fields that decide where a stored secret is sent and how it travels (TLS settings included): changing one
   * makes the client re-enter kept secrets. Empty for types without secrets.
   */
  readonly destinationFields: readonly string[];
  /** Config kept as given: every secret-looking field name is masked and address-like names count as destination. */
  readonly openConfig?: boolean;
  /** The data connect selection fields the type takes (others are refused), and which of them it needs. */
  readonly selection?: { readonly [F in SelectionField]?: 'required' | 'optional' };
  /** Selection fields of which exactly one must be given (neo4j: a label or a cypher query). */
  readonly selectionOneOf?: readonly SelectionField[];
  /** The `status` of a successful test (REST answers `ok`, the others `live`). */
  readonly testedStatus?: 'live' | 'ok';
  readonly driver: ConnectorDriver<C>;
}

/**
 * Declares a type's descriptor, keeping its literal name for the derived ConnectorType union; its config class is
 * described in the contract as the config of that type.
 */
export function defineConnector<const N extends string, C>(
  descriptor: ConnectorDescriptor<N, C>,
): ConnectorDescriptor<N, C> {
  const names = [descriptor.name, ...(descriptor.aliases ?? []).map((alias) => alias.name)];
  if (!descriptor.openConfig) {
    ApiSchema({ description: `The config of connector_type ${names.join(', ')}.` })(descriptor.config);
  }
  return descriptor;
}
