import { Module } from '@nestjs/common';
import { NativeNotifyTransport, NOTIFY_TRANSPORT } from './notify-transport';
import { SystemdNotifier } from './systemd-notifier';

/** READY=1 / STOPPING=1 to systemd; main.ts reads the notifier from the booted app. */
@Module({
  providers: [{ provide: NOTIFY_TRANSPORT, useFactory: () => new NativeNotifyTransport() }, SystemdNotifier],
  exports: [SystemdNotifier],
})
export class SystemdModule {}
