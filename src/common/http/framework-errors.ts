import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, toErrorBody } from '../errors';
import { AppLogger } from '../logging';
import { sendError } from './error.filter';
import { newRequestId } from './request-id';

/** The onRequest hook that sets X-Request-Id has not run for these, so it is set here. */
export function answerFrameworkError(logger: AppLogger) {
  return (error: Error, request: FastifyRequest, reply: FastifyReply): void => {
    void reply.header('x-request-id', request.id);
    sendError(logger, error, request, reply);
  };
}

/** A request line at least this long is what overflowed the header limit, not the headers after it. */
const LONG_REQUEST_LINE = 8 * 1024;

// Node counts the request line toward its header limit: a packet whose request line does not end was a long URL (414).
function isUrlOverflow(error: NodeJS.ErrnoException & { rawPacket?: unknown }): boolean {
  if (!Buffer.isBuffer(error.rawPacket)) return false;
  const head = error.rawPacket.subarray(0, LONG_REQUEST_LINE + 2).toString('latin1');
  if (!/^[A-Z]+ \S/.test(head)) return false;
  const end = head.indexOf('\r\n');
  return end < 0 || end >= LONG_REQUEST_LINE;
}

function clientErrorOf(error: NodeJS.ErrnoException): AppError {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return isUrlOverflow(error)
      ? new AppError('uri_too_long', 'The request URL is longer than the server accepts.')
      : new AppError('headers_too_large');
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('request_timeout');
  return new AppError('malformed_request');
}

/** There is no request object, so the answer is written on the socket, which is then closed as Node does. */
export function answerClientError(logger: AppLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const appError = clientErrorOf(error);
    const requestId = newRequestId();
    logger.info(
      { event: 'http_client_error', request_id: requestId, status: appError.status, reason: error.code },
      'refused a request the HTTP parser could not read',
    );
    // A response already under way for this connection cannot be replaced: just close it.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && inFlight?.headersSent !== true) {
      const body = JSON.stringify(toErrorBody(appError, requestId));
      socket.write(
        `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status] ?? ''}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${requestId}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
