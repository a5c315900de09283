import diagnostics from 'node:diagnostics_channel';
import { Socket } from 'node:net';
import { EgressGuardService } from '../../src/modules/egress/egress-guard.service';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * "No other outbound connection": every TCP socket the process opens while the daemon boots and works must go to an
 * address the egress guard checked and pinned — apart from this test's own requests to the daemon.
 */
describe('outbound sockets of the daemon', () => {
  const opened: { socket: Socket; remote?: string; port?: number }[] = [];
  const onSocket = (message: unknown): void => {
    const { socket } = message as { socket: Socket };
    const entry: (typeof opened)[number] = { socket };
    opened.push(entry);
    socket.once('connect', () => {
      entry.remote = socket.remoteAddress;
      entry.port = socket.remotePort;
    });
  };
  let t: TestApp;
  let allowed: Receiver;
  let forbidden: Receiver;

  beforeAll(async () => {
    diagnostics.subscribe('net.client.socket', onSocket);
    allowed = await startReceiver();
    forbidden = await startReceiver();
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${allowed.port}` });
  });

  afterAll(async () => {
    diagnostics.unsubscribe('net.client.socket', onSocket);
    await t.close();
    await allowed.close();
    await forbidden.close();
  });

  it('opens sockets only to destinations the guard pinned', async () => {
    const token = (await signupAccount(t)).apiKey;
    const good = await t.request('POST', '/v1/webhooks/test', {
      token,
      body: { callback_url: `${allowed.url}/x` },
    });
    expect(good.body.success).toBe(true);
    for (const url of [
      `${forbidden.url}/`,
      `http://localhost:${forbidden.port}/`,
      `http://[::ffff:127.0.0.1]:${forbidden.port}/`,
    ]) {
      const bad = await t.request('POST', '/v1/webhooks/test', { token, body: { callback_url: url } });
      expect(bad.body.success).toBe(false);
    }
    await t.request('GET', '/v1/admin/privacy-report', { token });

    const daemonPort = Number(new URL(t.baseUrl).port);
    const guard = t.app.get(EgressGuardService);
    const outbound = opened.filter((o) => o.remote !== undefined && o.port !== daemonPort);
    expect(outbound.length).toBeGreaterThanOrEqual(1);
    const unguarded = outbound.filter((o) => !guard.isPinned(o.remote as string, o.port as number));
    expect(unguarded.map((o) => `${o.remote}:${o.port}`)).toEqual([]);
    expect(outbound.every((o) => o.port === allowed.port)).toBe(true);
    expect(forbidden.connections).toBe(0);
  });
});
