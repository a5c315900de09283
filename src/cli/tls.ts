import '../common/runtime/require-supported-node';
import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { loadConfig } from '../common/config';
import { CertificateInfo, describeCertificate, parseCertificates } from '../common/tls/certificate-info';
import { createCertificateRequest, installCertificate } from '../common/tls/certificate-install';
import { readTlsFile, TlsDir } from '../common/tls/tls-dir';
import { TlsFileError } from '../common/tls/tls-file-error';

const DAY_MS = 86_400_000;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function describe(info: CertificateInfo, origin: string, now: Date): string {
  const daysLeft = Math.floor((info.notAfter.getTime() - now.getTime()) / DAY_MS);
  const state =
    now < info.notBefore ? 'not valid yet' : daysLeft < 0 ? 'EXPIRED' : `valid, ${daysLeft} days left`;
  return [
    `origin:      ${origin}`,
    `subject:     ${info.subject}`,
    `issuer:      ${info.issuer}`,
    `SANs:        ${info.sans.join(', ')}`,
    `SHA-256:     ${info.fingerprintSha256}`,
    `not before:  ${info.notBefore.toISOString()}`,
    `not after:   ${info.notAfter.toISOString()} (${state})`,
    '',
  ].join('\n');
}

function show(): number {
  const config = loadConfig();
  const dir = new TlsDir(config.tlsDir);
  const certFile = config.tls === 'files' ? config.tlsCertFile! : dir.certFile;
  if (!existsSync(certFile)) {
    process.stdout.write(
      `SERVICE_TLS=${config.tls}: no certificate at ${certFile} yet (the daemon makes one at its first start in self-signed mode)\n`,
    );
    return 0;
  }
  const [cert] = parseCertificates(certFile, readTlsFile(certFile).toString('utf8'));
  const origin = config.tls === 'files' ? 'files' : dir.origin();
  process.stdout.write(
    `mode:        ${config.tls}\nfile:        ${certFile}\n${describe(describeCertificate(cert), origin, new Date())}`,
  );
  return 0;
}

function run(argv: readonly string[]): number {
  let code = 0;
  const program = new Command('decisiond tls')
    .description('the appliance certificate: make a CSR, install the signed certificate, show the served one')
    .exitOverride();
  program
    .command('csr')
    .description("print a PEM certificate signing request for the appliance's key on stdout")
    .requiredOption('--cn <name>', 'the common name, e.g. the appliance host name')
    .option('--san <name>', 'another DNS name or IP address to ask for (repeatable)', collect, [])
    .action((options: { cn: string; san: string[] }) => {
      process.stdout.write(createCertificateRequest(loadConfig(), options.cn, options.san));
    });
  program
    .command('install')
    .description(
      'validate and install a signed certificate (PEM, or a PKCS#12 bundle); the daemon serves it after SIGHUP',
    )
    .option('--cert <file>', 'the signed certificate (PEM)')
    .option('--key <file>', 'its private key (PEM); default: the key the CSR was made for')
    .option('--chain <file>', 'the intermediate CA certificates (PEM), issuer of the certificate first')
    .option('--p12 <file>', 'a PKCS#12 bundle with key, certificate and chain')
    .option('--password-file <file>', 'the PKCS#12 password (a trailing newline is not part of it)')
    .action(
      (options: { cert?: string; key?: string; chain?: string; p12?: string; passwordFile?: string }) => {
        const config = loadConfig();
        let info: CertificateInfo;
        if (options.p12 !== undefined) {
          if (options.passwordFile === undefined || options.cert !== undefined) {
            throw new UsageError('--p12 needs --password-file and takes no --cert');
          }
          info = installCertificate(
            config,
            { kind: 'pkcs12', p12File: options.p12, passwordFile: options.passwordFile },
            new Date(),
          );
        } else {
          if (options.cert === undefined)
            throw new UsageError('give --cert FILE (or --p12 FILE --password-file FILE)');
          info = installCertificate(
            config,
            { kind: 'pem', certFile: options.cert, keyFile: options.key, chainFile: options.chain },
            new Date(),
          );
        }
        process.stdout.write(
          `${describe(info, 'installed', new Date())}installed; serve it with: systemctl reload decision-service (SIGHUP)\n`,
        );
      },
    );
  program
    .command('show')
    .description('print the certificate the daemon serves')
    .action(() => {
      code = show();
    });
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    return failure(error);
  }
  return code;
}

class UsageError extends Error {}

function failure(error: unknown): number {
  if (error instanceof TlsFileError) {
    process.stderr.write(`decisiond tls: refused, nothing was changed: ${error.message}\n`);
    return 65;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`decisiond tls: ${error.message}\n`);
    return 64;
  }
  const commanderCode = (error as { exitCode?: number; code?: string }).exitCode;
  if (commanderCode !== undefined) return commanderCode === 0 ? 0 : 64;
  throw error;
}

process.exitCode = run(process.argv.slice(2));
