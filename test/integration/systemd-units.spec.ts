import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const UNITS = join(__dirname, '..', '..', 'systemd');

/** `systemd-analyze security --offline=true` prints "Overall exposure level for X: 0.9 SAFE". */
export function exposureOf(unitPath: string, root?: string): number {
  const args = ['security', '--offline=true', '--no-pager', ...(root ? [`--root=${root}`] : []), unitPath];
  const run = spawnSync('systemd-analyze', args, { encoding: 'utf8' });
  const match = /Overall exposure level for \S+: (\d+(?:\.\d+)?)/.exec(`${run.stdout}${run.stderr}`);
  if (!match) throw new Error(`systemd-analyze security gave no score:\n${run.stdout}${run.stderr}`);
  return Number(match[1]);
}

const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
const describeIf = hasAnalyze ? describe : describe.skip;
if (!hasAnalyze) console.warn('systemd-analyze is not installed: unit hardening checks skipped');

describeIf('systemd units in systemd/', () => {
  it('rate the daemon unit at most 1.5 (goal 1.0) and the runtime unit lower', () => {
    expect(exposureOf(join(UNITS, 'decision-service.service'))).toBeLessThanOrEqual(1.0);
    expect(exposureOf(join(UNITS, 'decision-runtime.service'))).toBeLessThanOrEqual(0.5);
  });

  it('keep the settings the package relies on', () => {
    const daemon = readFileSync(join(UNITS, 'decision-service.service'), 'utf8');
    for (const line of [
      'Type=notify',
      'NotifyAccess=main',
      'WatchdogSec=30s',
      'ExecStart=/usr/bin/decisiond',
      'ExecReload=/bin/kill -HUP $MAINPID',
      'User=decision-service',
      'StateDirectory=decision-service',
      'StateDirectoryMode=0700',
      'IPAddressDeny=any',
      'IPAddressAllow=localhost',
      'CapabilityBoundingSet=',
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
    ]) {
      expect(daemon.split('\n')).toContain(line);
    }
    expect(daemon).not.toMatch(/^MemoryDenyWriteExecute=yes/m);
    const runtime = readFileSync(join(UNITS, 'decision-runtime.service'), 'utf8');
    for (const line of [
      'PrivateNetwork=yes',
      'RestrictAddressFamilies=AF_UNIX',
      'RuntimeDirectory=decision-service-runtime',
    ]) {
      expect(runtime.split('\n')).toContain(line);
    }
  });
});
