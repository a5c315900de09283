import { Global, Module } from '@nestjs/common';
import { NativeNotifyTransport, NOTIFY_TRANSPORT } from './notify-transport';
import { SystemdNotifier } from './systemd-notifier';

/** Global so any module (the engine pool, say) can post a STATUS= line. */
@Global()
@Module({
  providers: [{ provide: NOTIFY_TRANSPORT, useFactory: () => new NativeNotifyTransport() }, SystemdNotifier],
  exports: [SystemdNotifier],
})
export class SystemdModule {}
