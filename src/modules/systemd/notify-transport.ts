import { join } from 'node:path';
import { APP_ROOT } from '../../common/config';

export interface NotifyTransport {
  send(socketPath: string, message: string): void;
}

export const NOTIFY_TRANSPORT = Symbol('NOTIFY_TRANSPORT');

/** Built by `npm run build` from native/sd-notify (Node's dgram cannot send Unix datagrams). */
export const NOTIFY_ADDON_PATH = join(APP_ROOT, 'engine_build', 'sd_notify.node');

interface NotifyAddon {
  notify(socketPath: string, message: string): void;
}

export class NativeNotifyTransport implements NotifyTransport {
  private addon?: NotifyAddon;

  constructor(private readonly addonPath = NOTIFY_ADDON_PATH) {}

  send(socketPath: string, message: string): void {
    this.addon ??= loadAddon(this.addonPath);
    this.addon.notify(socketPath, message);
  }
}

function loadAddon(path: string): NotifyAddon {
  const holder = { exports: {} as NotifyAddon };
  process.dlopen(holder, path);
  return holder.exports;
}
