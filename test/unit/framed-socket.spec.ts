import { mkdtempSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FramedSocket, FramedSocketClosedError, FrameTimeoutError } from '../../src/common/framed-socket';
import { encodeFrame, FrameDecoder } from '../../src/common/framing';
import { waitUntil } from '../support/wait';

/** A loopback helper on a Unix socket: hands each decoded frame and its connection to `onFrame`. */
async function helperServer(
  onFrame: (frame: unknown, peer: Socket) => void,
  onConnect: (peer: Socket) => void,
): Promise<{ path: string; server: Server }> {
  const path = join(mkdtempSync(join(tmpdir(), 'ds-framed-')), 'helper.sock');
  const server = createServer((peer) => {
    onConnect(peer);
    const decoder = new FrameDecoder();
    peer.on('data', (chunk: Buffer) => decoder.push(chunk).forEach((frame) => onFrame(frame, peer)));
    peer.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, server };
}

describe('FramedSocket', () => {
  const servers: Server[] = [];
  const clients: FramedSocket[] = [];
  afterEach(() => {
    clients.splice(0).forEach((c) => c.destroy());
    servers.splice(0).forEach((s) => s.close());
  });

  async function open(path: string): Promise<FramedSocket> {
    const socket = await FramedSocket.connect(path);
    clients.push(socket);
    return socket;
  }

  async function serve(
    onFrame: (frame: unknown, peer: Socket) => void,
    onConnect: (peer: Socket) => void = () => undefined,
  ): Promise<string> {
    const { path, server } = await helperServer(onFrame, onConnect);
    servers.push(server);
    return path;
  }

  it('matches replies to requests in order, whatever the chunking', async () => {
    const path = await serve((frame, peer) => {
      const n = (frame as { n: number }).n;
      const bytes = encodeFrame({ echo: n, text: 'é'.repeat(n) });
      // One reply dribbled byte by byte, the next written whole: the decoder must not care.
      if (n === 1) for (const byte of bytes) peer.write(Buffer.from([byte]));
      else peer.write(bytes);
    });
    const socket = await open(path);
    const replies = await Promise.all([socket.request({ n: 1 }, 5000), socket.request({ n: 2 }, 5000)]);
    expect(replies).toEqual([
      { echo: 1, text: 'é' },
      { echo: 2, text: 'éé' },
    ]);
    expect(socket.isIdle).toBe(true);
  });

  it('keeps a frame nobody waited for for the next read, and is not idle until it is read', async () => {
    const path = await serve(
      () => undefined,
      (peer) => peer.write(encodeFrame({ type: 'hello', version: '1.2.3' })),
    );
    const socket = await open(path);
    await waitUntil(() => !socket.isIdle, 5000, 'the hello arrives');
    expect(await socket.next(5000)).toEqual({ type: 'hello', version: '1.2.3' });
    expect(socket.isIdle).toBe(true);
  });

  it('rejects a request nobody answers with FrameTimeoutError and leaves the connection to the caller', async () => {
    const path = await serve(() => undefined);
    const socket = await open(path);
    const failure = await socket.request({ type: 'ping' }, 20).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FrameTimeoutError);
    expect((failure as FrameTimeoutError).waitedMs).toBe(20);
    expect(socket.isOpen).toBe(true);
  });

  it('refuses every waiting reply, tells its listeners and refuses sends once the helper hangs up', async () => {
    const path = await serve((_frame, peer) => peer.end());
    const socket = await open(path);
    const closed: FramedSocketClosedError[] = [];
    socket.onClose((error) => closed.push(error));
    const failure = await socket.request({ type: 'run' }, 5000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FramedSocketClosedError);
    expect((failure as FramedSocketClosedError).reason).toBe('end of stream');
    expect(closed).toEqual([failure]);
    expect(socket.isOpen).toBe(false);
    expect(() => socket.send({ type: 'run' })).toThrow(FramedSocketClosedError);
    await expect(socket.next(5000)).rejects.toBe(failure);
  });

  it('closes on a frame announcing more than the limit', async () => {
    const path = await serve((_frame, peer) => {
      const header = Buffer.alloc(4);
      header.writeUInt32BE(0xffffffff, 0);
      peer.write(header);
    });
    const socket = await open(path);
    const failure = await socket.request({ type: 'run' }, 5000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FramedSocketClosedError);
    expect((failure as FramedSocketClosedError).reason).toMatch(/announced 4294967295 bytes/);
    expect(socket.isOpen).toBe(false);
  });

  it('rejects a connect to a missing socket with the socket error code', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'ds-framed-')), 'absent.sock');
    await expect(FramedSocket.connect(missing)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
