import { ApiSchema } from '@nestjs/swagger';
import type { ClassConstructor } from 'class-transformer';
import type { ConnectorConfig } from './config-fields';
export type { RequestedType } from './config-fields';
import type { ConnectorDriver } from './connector-driver';
import type { FileType } from './file-types';

/** `/v1/data/connect` accepts a family name as `connection_type`. */
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

export const SELECTION_FIELDS = ['pattern', 'max_keys', 'path', 'ref', 'index', 'label', 'cypher'] as const;
export type SelectionField = (typeof SELECTION_FIELDS)[number];

export interface TypeAlias {
  readonly name: string;
  readonly fileType?: FileType;
}

// Everything about one connector type; the type list, validation, contract schema and masking derive from it.
export interface ConnectorDescriptor<N extends string = string, C = unknown> {
  readonly name: N;
  readonly family: ConnectorFamily;
  readonly aliases?: readonly TypeAlias[];
  /** Stored beside the type where the spec names one (azure → azure_blob). */
  readonly provider?: string;
  readonly config: ClassConstructor<ConnectorConfig<C>>;
  /** Changing one makes the client re-enter kept secrets. */
  readonly destinationFields: readonly string[];
  /** Config kept as given: every secret-looking field name is masked and address-like names count as destination. */
  readonly openConfig?: boolean;
  readonly selection?: { readonly [F in SelectionField]?: 'required' | 'optional' };
  /** Selection fields of which exactly one must be given (neo4j: a label or a cypher query). */
  readonly selectionOneOf?: readonly SelectionField[];
  readonly testedStatus?: 'live' | 'ok';
  readonly driver: ConnectorDriver<C>;
}

export function defineConnector<const N extends string, C>(
  descriptor: ConnectorDescriptor<N, C>,
): ConnectorDescriptor<N, C> {
  const names = [descriptor.name, ...(descriptor.aliases ?? []).map((alias) => alias.name)];
  if (!descriptor.openConfig) {
    ApiSchema({ description: `The config of connector_type ${names.join(', ')}.` })(descriptor.config);
  }
  return descriptor;
}
