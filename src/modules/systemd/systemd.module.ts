import { Module } from '@nestjs/common';
import { NativeNotifyTransport, NOTIFY_TRANSPORT } from './notify-transport';
import { SystemdNotifier } from './systemd-notifier';

@Module({
  providers: [{ provide: NOTIFY_TRANSPORT, useFactory: () => new NativeNotifyTransport() }, SystemdNotifier],
  exports: [SystemdNotifier],
})
export class SystemdModule {}
