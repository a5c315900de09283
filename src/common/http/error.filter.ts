import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AppLogger } from '../logging';
import { toAppError, toErrorBody } from '../errors';

/** Turns anything thrown inside Nest into the error body of DESIGN.md §3; stacks are logged, never sent. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(this.logger, exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}

export function sendError(
  logger: AppLogger,
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const error = toAppError(exception);
  if (error.status >= 500) {
    logger.error({ event: 'request_failed', request_id: request.id, err: exception }, 'unhandled error');
  }
  if (reply.sent) return;
  for (const [name, value] of Object.entries(error.headers ?? {})) void reply.header(name, value);
  void reply
    .status(error.status)
    .type('application/json; charset=utf-8')
    .send(toErrorBody(error, request.id));
}
