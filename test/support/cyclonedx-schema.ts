import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';

/** The CycloneDX 1.5 JSON schema and the two it references, as published (test/fixtures/cyclonedx/): no network. */
const SCHEMA_DIR = join(__dirname, '..', 'fixtures', 'cyclonedx');

const load = (file: string): object => JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as object;

/** Schema errors of `document` against CycloneDX 1.5 (an empty list when it is valid). */
export function cycloneDxErrors(document: unknown): ErrorObject[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // Formats of the schema that ajv-formats does not define: checked as their ASCII cousins, plus any Unicode.
  ajv.addFormat('iri-reference', /^[^\s]*$/u);
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  ajv.addSchema(load('spdx.schema.json'));
  ajv.addSchema(load('jsf-0.82.schema.json'));
  const validate = ajv.compile(load('bom-1.5.schema.json'));
  return validate(document) ? [] : (validate.errors ?? []);
}
