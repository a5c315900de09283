import { Type } from '@nestjs/common';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { IOptions } from 'class-validator-jsonschema/build/options';
import { NULLABLE_RULE } from '../../common/validation';

type ClassTransformerStorage = typeof import('class-transformer/types/storage');
/** class-transformer's @Type registry: its module ships no typings of its own. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as ClassTransformerStorage;

export type SchemaObject = Record<string, unknown>;

/** A custom rule (`@Problem`) says nothing about its field's type beyond what TypeScript declared. */
function customRuleSchema(meta: ValidationMetadata): SchemaObject {
  const [constraint] = getMetadataStorage().getTargetValidatorConstraints(meta.constraintCls);
  // Merged with the field's other rules; the document turns `nullable` into a `null` type (OpenAPI 3.1).
  if (constraint?.name === NULLABLE_RULE) return { nullable: true };
  const prototype = (meta.target as Type).prototype as object;
  const type = Reflect.getMetadata('design:type', prototype, meta.propertyName) as unknown;
  if (type === String) return { type: 'string' };
  if (type === Number) return { type: 'number' };
  if (type === Boolean) return { type: 'boolean' };
  if (type === Array) return { type: 'array' };
  return {};
}

const OPTIONS: Partial<IOptions> = {
  refPointerPrefix: '#/components/schemas/',
  classTransformerMetadataStorage: defaultMetadataStorage,
  classValidatorMetadataStorage: getMetadataStorage(),
  additionalConverters: { [ValidationTypes.CUSTOM_VALIDATION]: customRuleSchema },
};

export function validatedClasses(): Type[] {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown> };
  return [...storage.validationMetadatas.keys()].filter((t): t is Type => typeof t === 'function');
}

/** `roots` are described with the rules they inherit, which the by-name map leaves out. */
export function requestSchemas(roots: readonly Type[]): Record<string, SchemaObject> {
  const schemas = validationMetadatasToSchemas(OPTIONS) as Record<string, SchemaObject>;
  for (const root of roots) schemas[root.name] = targetConstructorToSchema(root, OPTIONS) as SchemaObject;
  return schemas;
}
