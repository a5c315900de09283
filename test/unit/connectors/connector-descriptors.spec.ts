import { fieldsOf } from '../../../src/modules/connectors/config-fields';
import {
  ACCEPTED_TYPE_NAMES,
  CONNECTOR_TYPES,
  OBJECT_STORE_TYPES,
  SQL_TYPES,
} from '../../../src/modules/connectors/connector-types';
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
