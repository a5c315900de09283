import { readFileSync } from 'node:fs';
import { Injectable } from '@nestjs/common';
import { StartupError } from '../../common/errors';
import { CONTRACT_FILE } from './contract-file';

/** The committed OpenAPI document, read once at start: one set of bytes for every caller, edition and flag. */
@Injectable()
export class ContractDocument {
  readonly bytes: Buffer;
  private parsed: Record<string, unknown> | undefined;

  constructor() {
    try {
      this.bytes = readFileSync(CONTRACT_FILE);
    } catch (error) {
      throw new StartupError('contract_missing', `The API contract ${CONTRACT_FILE} cannot be read.`, {
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }

  document(): Record<string, unknown> {
    this.parsed ??= JSON.parse(this.bytes.toString('utf8')) as Record<string, unknown>;
    return this.parsed;
  }

  schemaOf(name: string): Record<string, unknown> {
    if (!(name in this.components())) throw new Error(`the contract describes no schema ${name}`);
    return this.inlined({ $ref: `${SCHEMA_REF}${name}` }, []) as Record<string, unknown>;
  }

  responseSchemaOf(operation: string): Record<string, unknown> {
    const [method, path] = operation.split(' ');
    const paths = this.document().paths as Record<string, Record<string, Operation | undefined> | undefined>;
    const responses = paths[path]?.[method.toLowerCase()]?.responses ?? {};
    const success = Object.entries(responses).find(([status]) => status.startsWith('2'))?.[1];
    const schema = success?.content?.['application/json']?.schema;
    if (schema === undefined) throw new Error(`the contract describes no JSON answer of ${operation}`);
    return this.inlined(schema, []) as Record<string, unknown>;
  }

  private components(): Record<string, unknown> {
    return (this.document().components as { schemas: Record<string, unknown> }).schemas;
  }

  private inlined(value: unknown, path: readonly string[]): unknown {
    if (Array.isArray(value)) return value.map((item) => this.inlined(item, path));
    if (typeof value !== 'object' || value === null) return value;
    const { $ref: ref, ...siblings } = value as Record<string, unknown>;
    const own = Object.fromEntries(
      Object.entries(siblings).map(([key, child]) => [key, this.inlined(child, path)]),
    );
    if (typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF))
      return ref === undefined ? own : { $ref: ref, ...own };
    const target = ref.slice(SCHEMA_REF.length);
    if (path.includes(target))
      throw new Error(`the contract schema ${path[0]} refers to itself through ${target}`);
    return { ...(this.inlined(this.components()[target], [...path, target]) as object), ...own };
  }
}

const SCHEMA_REF = '#/components/schemas/';

interface Operation {
  readonly responses?: Record<string, { readonly content?: Record<string, { readonly schema?: unknown }> }>;
}
