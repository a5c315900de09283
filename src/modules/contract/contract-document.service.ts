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
}
