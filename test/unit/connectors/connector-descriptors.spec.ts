import { fieldsOf } from '../../../src/modules/connectors/config-fields';
import { MASK, maskConfig } from '../../../src/modules/connectors/connector-secrets';
import {
  ACCEPTED_TYPE_NAMES,
  CONNECTOR_TYPES,
  OBJECT_STORE_TYPES,
  SQL_TYPES,
} from '../../../src/modules/connectors/connector-types';
import { describeConnectorTypes } from '../../../src/modules/connectors/connector-type-descriptions';
import { CONNECTORS } from '../../../src/modules/connectors/drivers';

describe('connector descriptors', () => {
  it('registers each type once, and no alias shadows a type or another alias', () => {
    expect(new Set(CONNECTOR_TYPES).size).toBe(CONNECTORS.length);
    expect(new Set(ACCEPTED_TYPE_NAMES).size).toBe(ACCEPTED_TYPE_NAMES.length);
  });

  it('derives the families data connect matches from the descriptors', () => {
    expect([...SQL_TYPES].sort()).toEqual(
      ['bigquery', 'clickhouse', 'mssql', 'mysql', 'postgres', 'redshift', 'snowflake', 'sqlite'].sort(),
    );
    expect([...OBJECT_STORE_TYPES].sort()).toEqual(['azure', 'gcs', 's3']);
  });

  // A destination field the config class does not declare would never be compared, letting a kept secret follow a
  // changed destination.
  it.each(CONNECTORS.filter((d) => !d.openConfig).map((d) => [d.name, d] as const))(
    '%s: every destination field is a config field',
    (_name, descriptor) => {
      const declared = fieldsOf(descriptor.config).map((field) => field.name);
      expect(descriptor.destinationFields.filter((field) => !declared.includes(field))).toEqual([]);
    },
  );
});

// A field a config class declares secret must be masked in every answer, whatever its name.
it.each(CONNECTORS.filter((d) => !d.openConfig).map((d) => [d.name, d] as const))(
  '%s: every declared secret is masked',
  (_name, descriptor) => {
    const secrets = fieldsOf(descriptor.config).filter((field) => field.secret);
    for (const field of secrets) {
      expect([field.name, maskConfig({ [field.name]: 'value' })[field.name]]).toEqual([field.name, MASK]);
    }
  },
);

describe('the types listing', () => {
  const described = describeConnectorTypes();
  const fieldsOfType = (type: string) => described.find((d) => d.type === type)?.fields ?? [];

  it('describes every canonical type, in the listing order, with its family and aliases', () => {
    expect(described.map((d) => d.type)).toEqual(CONNECTOR_TYPES);
    expect(described.find((d) => d.type === 'postgres')).toMatchObject({
      family: 'sql',
      aliases: ['postgresql'],
    });
  });

  it("derives each field's name, requirement, secrecy, default and aliases from the config class", () => {
    expect(fieldsOfType('redis')).toEqual([
      { name: 'host', type: 'string', required: false, secret: false, default: 'localhost' },
      { name: 'port', type: 'integer', required: false, secret: false, default: 6379 },
      {
        name: 'username',
        type: 'string',
        required: false,
        secret: false,
        aliases: ['user'],
        description: 'An ACL user (Redis 6+).',
      },
      { name: 'password', type: 'string', required: false, secret: true },
      {
        name: 'db',
        type: 'integer',
        required: false,
        secret: false,
        default: 0,
        description: 'The logical database number.',
      },
      { name: 'tls', type: 'boolean', required: false, secret: false, default: false },
    ]);
    expect(fieldsOfType('postgres').find((f) => f.name === 'database')).toEqual({
      name: 'database',
      type: 'string',
      required: false,
      conditionally_required: true,
      secret: false,
      description: 'Required without a DSN.',
    });
    expect(
      fieldsOfType('s3')
        .filter((f) => f.required)
        .map((f) => f.name),
    ).toEqual(['bucket', 'key']);
    expect(fieldsOfType('postgres').find((f) => f.name === 'ssl_mode')?.values).toContain('verify-full');
    const pagination = fieldsOfType('rest').find((f) => f.name === 'pagination');
    expect(pagination?.type).toBe('object');
    expect(pagination?.fields?.filter((f) => f.required).map((f) => f.name)).toEqual(['mode', 'max_pages']);
  });
});
