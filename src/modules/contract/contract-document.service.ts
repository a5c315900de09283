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

  /** One component schema of the document as a self-contained JSON Schema: its references replaced by their schemas. */
  schemaOf(name: string): Record<string, unknown> {
    const components = (this.document().components as { schemas: Record<string, unknown> }).schemas;
    const inline = (value: unknown, path: readonly string[]): unknown => {
      if (Array.isArray(value)) return value.map((item) => inline(item, path));
      if (typeof value !== 'object' || value === null) return value;
      const { $ref: ref, ...siblings } = value as Record<string, unknown>;
      const own = Object.fromEntries(
        Object.entries(siblings).map(([key, child]) => [key, inline(child, path)]),
      );
      if (typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF))
        return ref === undefined ? own : { $ref: ref, ...own };
      const target = ref.slice(SCHEMA_REF.length);
      if (path.includes(target))
        throw new Error(`the contract schema ${name} refers to itself through ${target}`);
      return { ...(inline(components[target], [...path, target]) as object), ...own };
    };
    if (!(name in components)) throw new Error(`the contract describes no schema ${name}`);
    return inline(components[name], [name]) as Record<string, unknown>;
  }
}

const SCHEMA_REF = '#/components/schemas/';
