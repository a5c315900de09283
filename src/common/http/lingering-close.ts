import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How long the rest of a refused body is read and discarded before the connection is dropped (nginx: 30 s). */
const LINGER_MS = 5_000;

// An early answer (413, 415) must reach the client: closing with the body unread makes the kernel send a reset that
// can destroy it, so the connection is half-closed and the rest discarded for LINGER_MS, as nginx does.
export function installLingeringClose(fastify: FastifyInstance): void {
  const lingering = new Set<Socket>();
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete) {
      void reply.header('connection', 'close');
      lingerInsteadOfDestroying(request.raw.socket, lingering);
    }
    done(null, payload);
  });
  fastify.addHook('preClose', (done) => {
    for (const socket of lingering) socket.destroy();
    done();
  });
}

/** Node ends a `Connection: close` answer with `socket.destroySoon()`: end the writing side, keep reading. */
function lingerInsteadOfDestroying(socket: Socket | null, lingering: Set<Socket>): void {
  // A route that gave up on its body (a streamed upload over the limit) may have destroyed the socket already.
  if (socket === null || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  socket.once('close', () => lingering.delete(socket));
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
    socket.resume();
  };
}
