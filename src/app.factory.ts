import { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AppConfig } from './common/config';
import { prepareDataDir } from './common/data-dir';
import {
  answerClientError,
  answerFrameworkError,
  createValidationPipe,
  ErrorFilter,
  installBodyParsers,
  installLingeringClose,
  installMethodNotAllowed,
  requestIdFor,
} from './common/http';
import { AppLogger } from './common/logging';
import { StartupError } from './common/errors';
import { MetricsService } from './common/metrics/metrics.service';
import { registerTlsMetrics, TlsCertificates, TlsFileError } from './common/tls';

/** Routes Nest's own messages into pino; Nest's chatty bootstrap lines go to debug. */
class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: AppLogger) {}
  log(message: unknown): void {
    this.logger.debug({ event: 'nest' }, String(message));
  }
  error(message: unknown, trace?: unknown): void {
    this.logger.error({ event: 'nest_error', trace }, String(message));
  }
  warn(message: unknown): void {
    this.logger.warn({ event: 'nest' }, String(message));
  }
}

function openTls(config: AppConfig, logger: AppLogger): TlsCertificates {
  try {
    return TlsCertificates.open(config, logger);
  } catch (error) {
    if (!(error instanceof TlsFileError)) throw error;
    throw new StartupError('tls_certificate_invalid', `cannot serve HTTPS: ${error.message}`, {
      file: error.file,
      problem: error.problem,
    });
  }
}

export async function createApp(config: AppConfig, logger: AppLogger): Promise<NestFastifyApplication> {
  prepareDataDir(config, logger);
  const tls = openTls(config, logger);
  const https = tls.serverOptions();
  const adapter = new FastifyAdapter({
    ...(https === undefined ? {} : { https }),
    bodyLimit: config.maxBodyBytes,
    genReqId: requestIdFor,
    logger: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: answerFrameworkError(logger),
    clientErrorHandler: answerClientError(logger),
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, logger, tls),
    adapter,
    {
      logger: new NestPinoLogger(logger),
      abortOnError: false,
      // Signed inbound webhooks are verified over the exact bytes received.
      rawBody: true,
    },
  );
  app.useGlobalFilters(new ErrorFilter(logger));
  app.useGlobalPipes(createValidationPipe());
  const fastify = app.getHttpAdapter().getInstance();
  if (https !== undefined) {
    tls.attach(fastify.server as import('node:https').Server);
    fastify.addHook('onClose', (_instance, done) => {
      tls.detach();
      done();
    });
  }
  // First of the onRequest hooks, so that an answer any later one gives (%00 in the URL) carries the request id.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  installBodyParsers(app, config);
  installMethodNotAllowed(fastify);

  const metrics = app.get(MetricsService);
  registerTlsMetrics(metrics, tls);
  installLingeringClose(fastify);
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.observeRequest(request.method, route, reply.statusCode, seconds);
    logger.info(
      {
        event: 'http_request',
        request_id: request.id,
        method: request.method,
        route,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
    done();
  });
  try {
    await app.init();
  } catch (error) {
    // A refused start (bad license, failed migration) must not leave the database or workers open behind it.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
