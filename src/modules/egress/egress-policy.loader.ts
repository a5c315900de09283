import { readFileSync } from 'node:fs';
import { AppConfig } from '../../common/config';
import { StartupError } from '../../common/errors';
import { EgressRule, InvalidRuleError, parseRule } from './egress-rules';
import { EgressPolicy } from './egress-policy';

/** Lines of a policy file: one or more comma-separated rules per line; `#` starts a comment. */
export function policyFileRules(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(','))
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

export function loadEgressPolicy(config: Pick<AppConfig, 'egressAllow' | 'egressPolicyFile'>): EgressPolicy {
  const sources: { origin: string; raws: readonly string[] }[] = [
    { origin: 'SERVICE_EGRESS_ALLOW', raws: config.egressAllow },
  ];
  if (config.egressPolicyFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(config.egressPolicyFile, 'utf8');
    } catch (error) {
      throw new StartupError(
        'egress_policy_invalid',
        `SERVICE_EGRESS_POLICY_FILE ${config.egressPolicyFile} cannot be read: ${(error as Error).message}`,
        { file: config.egressPolicyFile },
      );
    }
    sources.push({
      origin: `SERVICE_EGRESS_POLICY_FILE (${config.egressPolicyFile})`,
      raws: policyFileRules(text),
    });
  }
  const rules: EgressRule[] = [];
  const seen = new Set<string>();
  for (const { origin, raws } of sources) {
    for (const raw of raws) {
      let rule: EgressRule;
      try {
        rule = parseRule(raw);
      } catch (error) {
        if (!(error instanceof InvalidRuleError)) throw error;
        throw new StartupError('egress_policy_invalid', `${origin}: ${error.message}`, {
          rule: error.rule,
          source: origin,
        });
      }
      if (seen.has(rule.text)) continue;
      seen.add(rule.text);
      rules.push(rule);
    }
  }
  return new EgressPolicy(rules);
}
