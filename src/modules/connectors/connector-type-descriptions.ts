import type { ClassConstructor } from 'class-transformer';
import { compact, fieldsOf } from './config-fields';
import type { ConfigFieldDescription, ConnectorTypeDescription } from './connector-types.dto';
import { CONNECTORS } from './drivers';

function describeFields(type: ClassConstructor<object>): ConfigFieldDescription[] {
  return fieldsOf(type).map((spec) =>
    compact<ConfigFieldDescription>({
      name: spec.name,
      type: spec.kind === 'enum' ? 'string' : spec.kind,
      required: spec.required === true,
      conditionally_required: spec.required === 'conditional' ? true : undefined,
      secret: spec.secret,
      default: spec.default,
      aliases: spec.aliases.length > 0 ? spec.aliases : undefined,
      values: spec.values,
      description: spec.description || undefined,
      fields: spec.nested ? describeFields(spec.nested()) : undefined,
    }),
  );
}

export function describeConnectorTypes(): ConnectorTypeDescription[] {
  return CONNECTORS.map((descriptor) => ({
    type: descriptor.name,
    family: descriptor.family,
    aliases: (descriptor.aliases ?? []).map((alias) => alias.name),
    open_config: descriptor.openConfig === true,
    fields: descriptor.openConfig ? [] : describeFields(descriptor.config),
  }));
}
