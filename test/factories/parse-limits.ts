import { loadConfig } from '../../src/common/config';
import { ParseLimits } from '../../src/modules/connectors/formats';
import { parseLimitsOf } from '../../src/modules/connectors/formats/parse-limits';

/** The parse limits of a default configuration, with `env` (SERVICE_PARSE_*) applied. */
export function parseLimits(env: Record<string, string> = {}): ParseLimits {
  return parseLimitsOf(loadConfig({ NODE_ENV: 'test', ...env }));
}
