import pino, { DestinationStream, Logger } from 'pino';
import { redactSecrets } from './redact';

export type AppLogger = Logger;

/** JSON lines on stdout; every logged object passes through secret redaction. */
export function createLogger(level: string, destination?: DestinationStream): AppLogger {
  return pino(
    {
      level,
      base: { service: 'decisiond' },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactSecrets(object) as Record<string, unknown>,
      },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

export const APP_LOGGER = Symbol('APP_LOGGER');
