import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { StartupError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { NOTIFY_TRANSPORT, NotifyTransport } from './notify-transport';

/** Every method is a no-op when NOTIFY_SOCKET is unset, so the daemon runs unchanged outside systemd. */
@Injectable()
export class SystemdNotifier implements OnModuleInit, BeforeApplicationShutdown {
  private watchdog?: NodeJS.Timeout;
  private failedOnce = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    @Inject(NOTIFY_TRANSPORT) private readonly transport: NotifyTransport,
  ) {}

  get isActive(): boolean {
    return this.config.notifySocket !== undefined;
  }

  /** Under systemd a notifier that cannot send would leave the unit "activating" until it times out: fail now. */
  onModuleInit(): void {
    if (!this.isActive) return;
    try {
      this.send('STATUS=starting');
    } catch (error) {
      throw new StartupError(
        'sd_notify_unavailable',
        `cannot notify systemd on ${this.config.notifySocket}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.startWatchdog();
  }

  ready(status: string): void {
    if (!this.isActive) return;
    this.trySend(`READY=1\nSTATUS=${oneLine(status)}`);
    this.logger.info(
      { event: 'systemd_notified_ready', watchdog_ms: this.watchdogIntervalMs() },
      'told systemd: ready',
    );
  }

  status(text: string): void {
    if (this.isActive) this.trySend(`STATUS=${oneLine(text)}`);
  }

  beforeApplicationShutdown(): void {
    this.stopWatchdog();
    if (this.isActive) this.trySend('STOPPING=1\nSTATUS=stopping');
  }

  /** WATCHDOG=1 at half the period systemd asked for; 0 when the watchdog is off or meant for another process. */
  watchdogIntervalMs(): number {
    const { watchdogUsec, watchdogPid } = this.config;
    if (!this.isActive || watchdogUsec === 0) return 0;
    if (watchdogPid !== 0 && watchdogPid !== process.pid) return 0;
    return Math.max(1, Math.floor(watchdogUsec / 2000));
  }

  private startWatchdog(): void {
    const intervalMs = this.watchdogIntervalMs();
    if (intervalMs === 0) return;
    this.watchdog = setInterval(() => this.trySend('WATCHDOG=1'), intervalMs);
    // The watchdog proves the event loop turns; it must never be what keeps the process alive.
    this.watchdog.unref();
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  private send(message: string): void {
    this.transport.send(this.config.notifySocket as string, message);
  }

  private trySend(message: string): void {
    try {
      this.send(message);
      this.failedOnce = false;
    } catch (error) {
      if (this.failedOnce) return;
      this.failedOnce = true;
      this.logger.warn({ event: 'sd_notify_failed', err: error }, 'could not notify systemd');
    }
  }
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
