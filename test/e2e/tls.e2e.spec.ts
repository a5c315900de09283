import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:https';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import {
  DaemonProcess,
  REPO_ROOT,
  spawnDaemon,
  waitForLogEvent,
  waitForStart,
} from '../support/daemon-process';

/**
 * The operator's flow with the real openssl: a self-signed certificate at first start, a CSR signed by a test CA,
 * `decisiond tls install` (refusing each bad input and changing nothing), SIGHUP, and `openssl s_client` verifying.
 */
const openssl = (args: string[], input?: string): string =>
  execFileSync('openssl', args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });

/** The served certificate as `openssl s_client` sees it, with the verification result against `caFile`. */
function handshake(port: number, caFile?: string): { text: string; verified: boolean } {
  const args = ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'appliance.test', '-showcerts'];
  if (caFile !== undefined) args.push('-verify_return_error', '-CAfile', caFile);
  const run = spawnSync('openssl', args, { input: '', encoding: 'utf8' });
  const leaf = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(run.stdout)?.[0] ?? '';
  const text =
    leaf === '' ? '' : openssl(['x509', '-noout', '-subject', '-issuer', '-ext', 'subjectAltName'], leaf);
  return { text, verified: run.status === 0 && run.stdout.includes('Verify return code: 0 (ok)') };
}

describe('HTTPS on the appliance (openssl)', () => {
  let dir: string;
  let dataDir: string;
  let daemon: DaemonProcess;
  let port: number;
  let env: Record<string, string>;

  const tls = (args: string[]) =>
    spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'decisiond.js'), 'tls', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env },
    });
  const servedCert = () => readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const file = (name: string, content: string, mode = 0o600): string => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode });
    chmodSync(path, mode);
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ds-tls-'));
    dataDir = join(dir, 'data');
    env = { SERVICE_DATA_DIR: dataDir, SERVICE_TLS: 'self-signed', SERVICE_TLS_SANS: 'appliance.test' };
    daemon = spawnDaemon({ ...env, SERVICE_PORT: '0' });
    const address = await waitForStart(daemon);
    expect(address).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    port = Number(new URL(address).port);
  }, 120_000);

  afterAll(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a generated certificate with the loopback, host and configured names; its key is 0600', () => {
    const { text } = handshake(port);
    expect(text).toContain('DNS:localhost');
    expect(text).toContain('IP Address:127.0.0.1');
    expect(text).toContain('IP Address:0:0:0:0:0:0:0:1');
    expect(text).toContain(`DNS:${hostname().toLowerCase()}`);
    expect(text).toContain('DNS:appliance.test');
    expect(openssl(['rsa', '-in', join(dataDir, 'tls', 'key.pem'), '-noout', '-text'])).toMatch(/3072 bit/);
    expect(
      execFileSync('stat', ['-c', '%a', join(dataDir, 'tls', 'key.pem')], { encoding: 'utf8' }).trim(),
    ).toBe('600');
  });

  it('installs a CSR signed by the operator CA after refusing every bad input, and serves it after SIGHUP', async () => {
    // A connection opened on the generated certificate, kept alive across the reload.
    const agent = new Agent({ keepAlive: true, ca: servedCert(), servername: 'localhost' });
    const get = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/v1/health', agent, servername: 'localhost' },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect(await get()).toEqual({ status: 200, reused: false });

    const csr = tls(['csr', '--cn', 'appliance.test', '--san', '10.9.9.9']);
    expect(csr.status).toBe(0);
    const csrFile = file('req.csr', csr.stdout);
    expect(openssl(['req', '-in', csrFile, '-noout', '-text'])).toMatch(
      /DNS:appliance\.test.*IP Address:10\.9\.9\.9/s,
    );

    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'ca.key'),
      '-out',
      join(dir, 'ca.pem'),
      '-days',
      '30',
      '-subj',
      '/CN=Test Operator CA',
    ]);
    const sign = (out: string, extra: string[] = []) =>
      openssl([
        'x509',
        '-req',
        '-in',
        csrFile,
        '-CA',
        join(dir, 'ca.pem'),
        '-CAkey',
        join(dir, 'ca.key'),
        '-CAcreateserial',
        '-days',
        '20',
        '-copy_extensions',
        'copy',
        '-out',
        join(dir, out),
        ...extra,
      ]);
    sign('signed.pem');
    const signed = join(dir, 'signed.pem');
    const before = servedCert();

    const refusals: [string[], RegExp][] = [];
    // A key that is not the certificate's.
    openssl(['genrsa', '-out', join(dir, 'other.key'), '2048']);
    chmodSync(join(dir, 'other.key'), 0o600);
    refusals.push([
      ['install', '--cert', signed, '--key', join(dir, 'other.key')],
      /other\.key: the private key does not match the certificate/,
    ]);
    // A key file other users can read.
    copyFileSync(join(dataDir, 'tls', 'key.pem'), join(dir, 'open.key'));
    chmodSync(join(dir, 'open.key'), 0o644);
    refusals.push([
      ['install', '--cert', signed, '--key', join(dir, 'open.key')],
      /open\.key: the private key file is accessible by other users \(mode 0644/,
    ]);
    // A truncated PEM.
    const pem = readFileSync(signed, 'utf8');
    const truncated = file('truncated.pem', pem.slice(0, pem.length / 2));
    refusals.push([['install', '--cert', truncated], /truncated\.pem: holds no complete PEM certificate/]);
    // Expired and not yet valid (openssl 3.0's x509 cannot backdate: forge signs with the same CA key).
    const caKey = forge.pki.privateKeyFromPem(readFileSync(join(dir, 'ca.key'), 'utf8'));
    const caCert = forge.pki.certificateFromPem(readFileSync(join(dir, 'ca.pem'), 'utf8'));
    const reissue = (name: string, from: number, to: number): string => {
      const cert = forge.pki.certificateFromPem(pem);
      cert.validity.notBefore = new Date(Date.now() + from * 86_400_000);
      cert.validity.notAfter = new Date(Date.now() + to * 86_400_000);
      cert.setIssuer(caCert.subject.attributes);
      cert.sign(caKey, forge.md.sha256.create());
      return file(name, forge.pki.certificateToPem(cert));
    };
    refusals.push([
      ['install', '--cert', reissue('expired.pem', -20, -1)],
      /expired\.pem: the certificate expired at/,
    ]);
    refusals.push([
      ['install', '--cert', reissue('future.pem', 2, 20)],
      /future\.pem: the certificate is not valid yet/,
    ]);
    // A chain that does not lead to the certificate.
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'stranger.key'),
      '-out',
      join(dir, 'stranger.pem'),
      '-days',
      '30',
      '-subj',
      '/CN=Stranger CA',
    ]);
    refusals.push([
      ['install', '--cert', signed, '--chain', join(dir, 'stranger.pem')],
      /stranger\.pem: chain certificate 1 did not issue the certificate/,
    ]);
    // A certificate without a name the CSR asked for.
    writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:appliance.test\n');
    sign('fewer-names.pem', ['-copy_extensions', 'none', '-extfile', join(dir, 'ext.cnf')]);
    refusals.push([
      ['install', '--cert', join(dir, 'fewer-names.pem')],
      /fewer-names\.pem: the certificate's subjectAltName lacks 10\.9\.9\.9/,
    ]);
    // A PKCS#12 bundle with the wrong password.
    const p12 = join(dir, 'bundle.p12');
    openssl([
      'pkcs12',
      '-export',
      '-in',
      signed,
      '-inkey',
      join(dataDir, 'tls', 'key.pem'),
      '-certfile',
      join(dir, 'ca.pem'),
      '-out',
      p12,
      '-passout',
      'pass:right horse',
    ]);
    refusals.push([
      ['install', '--p12', p12, '--password-file', file('wrong.txt', 'battery staple\n')],
      /bundle\.p12: wrong PKCS#12 password/,
    ]);

    for (const [args, message] of refusals) {
      const run = tls(args);
      expect({ args, stderr: run.stderr }).toEqual({ args, stderr: expect.stringMatching(message) });
      expect(run.status).toBe(65);
      expect(servedCert()).toBe(before);
    }

    // Both PKCS#12 flavours of OpenSSL 3 open with a password file whose trailing newline is not the password's.
    const legacy = join(dir, 'legacy.p12');
    openssl([
      'pkcs12',
      '-export',
      '-legacy',
      '-in',
      signed,
      '-inkey',
      join(dataDir, 'tls', 'key.pem'),
      '-out',
      legacy,
      '-passout',
      'pass:right horse',
    ]);
    const password = file('password.txt', 'right horse\n');
    expect(tls(['install', '--p12', legacy, '--password-file', password]).status).toBe(0);
    const installed = tls(['install', '--p12', p12, '--password-file', password]);
    expect(installed.stderr).toBe('');
    expect(installed.status).toBe(0);
    expect(installed.stdout).toContain('issuer:      CN=Test Operator CA');
    expect(handshake(port, join(dir, 'ca.pem')).verified).toBe(false);

    daemon.child.kill('SIGHUP');
    await waitForLogEvent(daemon, 'tls_certificate_reloaded');
    const served = handshake(port, join(dir, 'ca.pem'));
    expect(served.verified).toBe(true);
    expect(served.text).toContain('issuer=CN = Test Operator CA');
    expect(served.text).toContain('IP Address:10.9.9.9');
    // The connection opened before the reload still answers.
    expect(await get()).toEqual({ status: 200, reused: true });
    agent.destroy();

    const shown = tls(['show']);
    expect(shown.stdout).toContain('origin:      installed');
    expect(shown.stdout).toContain('SANs:        appliance.test, 10.9.9.9');
  }, 120_000);

  it('on SIGHUP refuses a key that no longer matches, logs the file and keeps serving what it had', async () => {
    copyFileSync(join(dir, 'other.key'), join(dataDir, 'tls', 'key.pem'));
    daemon.child.kill('SIGHUP');
    const refused = await waitForLogEvent(daemon, 'tls_certificate_refused');
    expect(refused.file).toBe(join(dataDir, 'tls', 'key.pem'));
    expect(refused.problem).toMatch(/does not match the certificate/);
    expect(handshake(port, join(dir, 'ca.pem')).verified).toBe(true);
  }, 60_000);

  it('refuses a TLS directory it cannot write, naming it', () => {
    const blocked = join(dir, 'blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'tls'), '');
    const run = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'dist', 'cli', 'decisiond.js'), 'tls', 'csr', '--cn', 'x'],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', SERVICE_DATA_DIR: blocked, SERVICE_TLS: 'self-signed' },
      },
    );
    expect(run.stderr).toContain(`${join(blocked, 'tls')}: is not a directory`);
    expect(run.status).toBe(65);
  });
});
