import { lookup } from 'node:dns/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { loadConfig } from '../common/config';
import { loadEgressPolicy } from '../modules/egress/egress-policy.loader';
import { parseRule } from '../modules/egress/egress-rules';
import { formatCidr } from '../modules/egress/ip-address';
import { nameserversOf, renderEgressDropIn, unenforcedRules } from './egress-systemd';

interface RenderOptions {
  readonly resolve?: boolean;
  readonly output?: string;
  readonly clients: string[];
}

async function resolveHosts(names: readonly string[]): Promise<Map<string, string[]>> {
  const resolved = new Map<string, string[]>();
  for (const name of names) {
    const answers = await lookup(name, { all: true, verbatim: true });
    resolved.set(name, [...new Set(answers.map((a) => a.address))].sort());
  }
  return resolved;
}

function clientNetwork(text: string): string {
  const rule = parseRule(text);
  if (rule.kind !== 'address' || rule.port !== undefined)
    throw new Error(`--clients ${text}: give an address or CIDR`);
  return formatCidr(rule.cidr);
}

function readResolvConf(): string {
  try {
    return readFileSync('/etc/resolv.conf', 'utf8');
  } catch {
    return '';
  }
}

async function renderSystemd(options: RenderOptions): Promise<void> {
  const policy = loadEgressPolicy(loadConfig());
  const hostNames = policy.rules.flatMap((rule) => (rule.kind === 'host' ? [rule.name] : []));
  const input = {
    rules: policy.rules,
    policySha256: policy.sha256,
    resolved: options.resolve ? await resolveHosts(hostNames) : undefined,
    nameservers: nameserversOf(readResolvConf()),
    clients: options.clients.map(clientNetwork),
  };
  const dropIn = renderEgressDropIn(input);
  for (const rule of unenforcedRules(input)) {
    process.stderr.write(`decisionctl: warning: egress rule ${rule} is enforced by the egress guard only\n`);
  }
  if (options.output) {
    writeFileSync(options.output, dropIn, { mode: 0o644 });
    process.stderr.write(
      `wrote ${options.output}; now run: systemctl daemon-reload && systemctl restart decision-service\n`,
    );
  } else {
    process.stdout.write(dropIn);
  }
}

export function registerEgressCommands(program: Command): void {
  const egress = program.command('egress').description('egress policy tools');
  egress
    .command('render-systemd')
    .description('print a systemd drop-in whose IPAddressAllow= lines match the egress rules')
    .option('--resolve', 'resolve host-name rules now and allow their current addresses')
    .option('--output <file>', 'write the drop-in to this file instead of standard output')
    .option(
      '--clients <cidr>',
      'a network allowed to reach the API when SERVICE_HOST is not loopback (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (options: RenderOptions) => renderSystemd(options));
}
