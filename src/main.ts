import './common/runtime/require-supported-node';
import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from './app.factory';
import { AppConfig, ConfigError, loadConfig } from './common/config';
import { prepareDataDir } from './common/data-dir';
import { lockDataDir } from './common/data-dir-lock';
import { describeStore, storeLocationOf } from './common/database';
import { StartupError } from './common/errors';
import { AppLogger, createLogger } from './common/logging';
import { TlsCertificates } from './common/tls';
import { EngineService } from './modules/engine/engine.service';
import { SystemdNotifier } from './modules/systemd/systemd-notifier';

function fail(logger: AppLogger, error: unknown): never {
  if (error instanceof StartupError) {
    logger.fatal({ event: error.event, ...error.fields }, error.message);
  } else {
    logger.fatal({ event: 'daemon_start_failed', err: error }, 'the daemon could not start');
  }
  logger.flush();
  process.exit(1);
}

const DRAIN_GRACE_MS = 5000;

// Not process.exit(): Node 24's exit can hang on a V8 worker thread waiting for a collection (nodejs/node#54918).
// Should a handle keep the loop alive, the grace timer exits anyway and names the handles.
function exitWhenDrained(logger: AppLogger): void {
  process.exitCode = 0;
  setTimeout(() => {
    const handles = process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout');
    logger.warn({ event: 'daemon_exit_forced', handles }, 'the event loop did not empty after the stop');
    logger.flush();
    process.exit(0);
  }, DRAIN_GRACE_MS).unref();
}

function stopOnSignals(app: NestFastifyApplication, config: AppConfig, logger: AppLogger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ event: 'daemon_stopping', signal }, 'stopping: finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.warn({ event: 'daemon_stop_timeout' }, 'in-flight work did not finish in time');
      logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutS * 1000);
    deadline.unref();
    app.close().then(
      () => {
        clearTimeout(deadline);
        logger.info({ event: 'daemon_stopped' }, 'stopped');
        logger.flush();
        exitWhenDrained(logger);
      },
      (error: unknown) => {
        logger.error({ event: 'daemon_stop_failed', err: error }, 'error while stopping');
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function reloadCertificateOnHangup(app: NestFastifyApplication, logger: AppLogger): void {
  const tls = app.get(TlsCertificates);
  process.on('SIGHUP', () => {
    if (tls.mode === 'off') {
      logger.info({ event: 'sighup_ignored' }, 'SIGHUP: TLS is off, nothing to reload');
      return;
    }
    tls.reload();
  });
}

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    const logger = createLogger('info');
    if (error instanceof ConfigError) {
      logger.fatal({ event: 'config_invalid', variable: error.variable }, error.message);
      process.stderr.write(`${error.message}\n`);
      logger.flush();
      process.exit(78);
    }
    fail(logger, error);
  }
  const logger = createLogger(config.logLevel);
  // As private as the unit's UMask=0077 also under `npm start`: whatever the daemon writes is its user's alone.
  process.umask(0o077);
  let app: NestFastifyApplication;
  try {
    prepareDataDir(config, logger);
    await lockDataDir(config.dataDir);
    app = await createApp(config, logger);
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    fail(logger, error);
  }
  stopOnSignals(app, config, logger);
  reloadCertificateOnHangup(app, logger);
  logger.info(
    {
      event: 'daemon_started',
      address: await app.getUrl(),
      data_dir: config.dataDir,
      store: describeStore(storeLocationOf(config)),
      pid: process.pid,
      node_version: process.version,
    },
    'decisiond is listening',
  );
  // Whoever waits for readiness (systemd, an operator's journalctl -f) reads the start line before READY=1.
  logger.flush();
  app
    .get(SystemdNotifier)
    .ready(`listening on ${await app.getUrl()} (engine mode: ${app.get(EngineService).mode})`);
}

void main();
