import { rmSync } from 'node:fs';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { EgressBlockedError } from '../../src/modules/egress/egress.types';
import { parseSmtpUrl, SmtpRelayTransport } from '../../src/modules/mail/smtp-relay.transport';
import { GuardHarness, startGuard } from '../support/egress-fixtures';
import { makeTempDir } from '../support/test-app';

/** A minimal SMTP server: enough of RFC 5321 for one plain-text delivery, recording what it received. */
async function startSmtpServer(): Promise<{
  server: Server;
  port: number;
  connections: number;
  messages: string[];
  envelopes: string[];
}> {
  const state = {
    server: createServer(),
    port: 0,
    connections: 0,
    messages: [] as string[],
    envelopes: [] as string[],
  };
  state.server.on('connection', (socket: Socket) => {
    state.connections++;
    let buffer = '';
    let inData = false;
    let data = '';
    socket.write('220 test.smtp ESMTP ready\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let index: number;
      while ((index = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            state.messages.push(data);
            data = '';
            socket.write('250 2.0.0 queued\r\n');
          } else {
            data += `${line.startsWith('..') ? line.slice(1) : line}\r\n`;
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-test.smtp\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL' || verb === 'RCPT') {
          state.envelopes.push(line);
          socket.write('250 2.1.0 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('502 not implemented\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', () => resolve()));
  state.port = (state.server.address() as AddressInfo).port;
  return state;
}

describe('SMTP relay through the egress guard', () => {
  let dir: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let h: GuardHarness;
  const mail = {
    from: 'Decision Service <no-reply@appliance.test>',
    to: 'ops@example.test',
    messageId: '<m1@appliance.test>',
    source:
      'From: Decision Service <no-reply@appliance.test>\r\nTo: ops@example.test\r\nSubject: Hello\r\n\r\nVerify: token=abc\r\n',
  };

  beforeAll(async () => {
    dir = makeTempDir('ds-smtp-');
    smtp = await startSmtpServer();
    h = await startGuard(dir, [`127.0.0.1:${smtp.port}`]);
  });
  afterAll(async () => {
    await h.close();
    smtp.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('parses relay URLs', () => {
    expect(parseSmtpUrl('smtps://relay.corp.example')).toEqual({
      host: 'relay.corp.example',
      port: 465,
      secure: true,
      user: undefined,
      password: undefined,
    });
    expect(parseSmtpUrl('smtp://us%40er:p%3Ass@10.0.0.5:2525')).toMatchObject({
      port: 2525,
      secure: false,
      user: 'us@er',
      password: 'p:ss',
    });
  });

  it('delivers through a socket the guard opened, recorded as purpose mail', async () => {
    const relay = new SmtpRelayTransport(parseSmtpUrl(`smtp://127.0.0.1:${smtp.port}`), h.guard);
    await relay.deliver(mail);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]).toContain('token=abc');
    expect(smtp.envelopes).toEqual(['MAIL FROM:<no-reply@appliance.test>', 'RCPT TO:<ops@example.test>']);
    const rows = await h.orm.em
      .fork()
      .getConnection()
      .execute<{ purpose: string; allowed: number; port: number }[]>(
        'select purpose, allowed, port from egress_decisions',
      );
    expect(rows).toEqual([{ purpose: 'mail', allowed: 1, port: smtp.port }]);
  });

  it('refuses a relay the policy does not allow, without connecting', async () => {
    const before = smtp.connections;
    const other = new SmtpRelayTransport(parseSmtpUrl(`smtp://127.0.0.2:${smtp.port}`), h.guard);
    await expect(other.deliver(mail)).rejects.toBeInstanceOf(EgressBlockedError);
    await expect(other.deliver(mail)).rejects.toThrow(/loopback_address/);
    expect(smtp.connections).toBe(before);
  });
});
