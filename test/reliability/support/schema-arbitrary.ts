import fc from 'fast-check';

type Schema = Record<string, any>;

/** Where generated URLs point: a closed loopback port, so that nothing leaves the machine and nothing waits. */
const LOOPBACK_URLS = [
  'http://127.0.0.1:9/hook',
  'https://127.0.0.1:9/x',
  'http://localhost:9/',
  'ftp://127.0.0.1/',
];

/**
 * Values that validate against a JSON Schema of the OpenAPI document (the subset Nest's generator writes: $ref,
 * allOf/anyOf/oneOf, enum, type lists, properties/required, lengths, bounds, formats, patterns). Examples the
 * document gives are among the values, so that the generated bodies reach past validation into the handlers.
 */
export function valueOf(schema: Schema | undefined, components: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 6) return fc.constant(null);
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop() as string;
    return valueOf(components.schemas?.[name] as Schema | undefined, components, depth + 1);
  }
  const generated = generatedValueOf(schema, components, depth);
  return schema.example !== undefined ? fc.oneof(fc.constant(schema.example), generated) : generated;
}

function generatedValueOf(schema: Schema, components: Schema, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((s) => valueOf(s, components, depth + 1));
    const own = schema.properties ? objectOf(schema, components, depth) : fc.constant({});
    return fc
      .tuple(own, ...parts)
      .map((values) =>
        values.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
          ? Object.assign({}, ...values)
          : values[values.length - 1],
      );
  }
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((s) => valueOf(s, components, depth + 1)));
  }
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (schema.nullable === true) types.push('null');
  if (types.length === 0)
    return schema.properties ? objectOf(schema, components, depth) : fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((type) => valueOfType(type, schema, components, depth)));
}

function valueOfType(type: string, schema: Schema, components: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      // Mostly near the minimum: a valid `runs` of ten million would spend the CI budget on one simulation.
      const min = bound(schema.minimum, -1000);
      const max = bound(schema.maximum, 100000);
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 1000) }) },
        { weight: 1, arbitrary: fc.integer({ min, max }) },
      );
    }
    case 'number':
      return fc.double({
        min: bound(schema.minimum, -1e6),
        max: bound(schema.maximum, 1e6),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return stringOf(schema);
    case 'array':
      return fc.array(valueOf(schema.items as Schema | undefined, components, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, Math.max(schema.minItems ?? 0, 4)),
      });
    case 'object':
      return objectOf(schema, components, depth);
    default:
      return fc.constant(null);
  }
}

function bound(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 200));
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.constantFrom(...LOOPBACK_URLS);
    case 'date-time':
      return fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uuid':
      return fc.uuid();
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((s) => s.length >= minLength && s.length <= Math.max(maxLength, minLength));
    } catch {
      // a pattern fast-check cannot generate from: plain strings below
    }
  }
  return fc.string({ minLength, maxLength });
}

function objectOf(schema: Schema, components: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    model[name] = valueOf(property, components, depth + 1);
  const requiredKeys = Object.keys(model).filter((k) => required.has(k));
  return fc.record(model, { requiredKeys });
}
