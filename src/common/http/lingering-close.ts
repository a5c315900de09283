import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How long the rest of a refused body is read and discarded before the connection is dropped (nginx: 30 s). */
const LINGER_MS = 5_000;

/**
 * An answer given before the request body has arrived (413 over the limit, 415, a refused URL) must reach the
 * client, and the connection must then close: the client would otherwise stream the rest into a drain, and a
 * graceful shutdown wait for it. Closing at once is not enough. Node closes the socket with the rest of the body
 * unread, the kernel answers unread data with a reset, and the reset can destroy the answer before the client
 * reads it: the client, still writing, sees EPIPE instead of the error. As nginx's lingering close does, the
 * connection is half-closed after the answer and the rest of the body is read and discarded until the client
 * stops sending, for at most LINGER_MS; a shutdown drops lingering connections at once.
 */
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
