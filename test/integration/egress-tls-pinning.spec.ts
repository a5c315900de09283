import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { GuardHarness, startGuard, tableResolver } from '../support/egress-fixtures';
import { makeTempDir } from '../support/test-app';

/** A CA and a leaf certificate for hooks.tls.test, made with the openssl CLI. */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  run(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=egress-test-ca',
  );
  run(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'leaf.key',
    '-out',
    'leaf.csr',
    '-subj',
    '/CN=hooks.tls.test',
  );
  writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=DNS:hooks.tls.test\n');
  run(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '2',
    '-extfile',
    'leaf.ext',
  );
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  return { ca: read('ca.pem'), key: read('leaf.key'), cert: read('leaf.pem') };
}

describe('egress guard over TLS', () => {
  let dir: string;
  let server: Server;
  let port: number;
  let h: GuardHarness;
  const servernames: (string | false)[] = [];
  const context = { purpose: 'connector' as const };

  beforeAll(async () => {
    dir = makeTempDir('ds-egress-tls-');
    const { ca, key, cert } = makeCertificates(dir);
    server = createServer({ key, cert }, (req, res) => {
      servernames.push((req.socket as TLSSocket & { servername?: string | false }).servername ?? false);
      res.end('secure');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
    h = await startGuard(
      dir,
      [`127.0.0.1:${port}`],
      tableResolver({ 'hooks.tls.test': ['127.0.0.1'], 'other.tls.test': ['127.0.0.1'] }),
      { ca: [ca] },
    );
  });

  afterAll(async () => {
    await h.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects to the checked address and keeps the host name for SNI and certificate checks', async () => {
    const response = await h.guard.fetch(`https://hooks.tls.test:${port}/`, {}, context);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('secure');
    expect(servernames).toEqual(['hooks.tls.test']);
  });

  it('still verifies the certificate against the name asked for', async () => {
    await expect(h.guard.fetch(`https://other.tls.test:${port}/`, {}, context)).rejects.toThrow();
    await expect(h.guard.fetch(`https://127.0.0.1:${port}/`, {}, context)).rejects.toThrow();
    expect(servernames).toEqual(['hooks.tls.test']);
  });

  it('opens verified TLS sockets for drivers', async () => {
    const socket = (await h.guard.openSocket('hooks.tls.test', port, context, { tls: true })) as TLSSocket;
    expect(socket.authorized).toBe(true);
    expect(socket.remoteAddress).toBe('127.0.0.1');
    socket.destroy();
    await expect(h.guard.openSocket('other.tls.test', port, context, { tls: true })).rejects.toThrow(
      /altnames|certificate/i,
    );
  });
});
