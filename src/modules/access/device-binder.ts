import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { RequestFacts } from './access.types';

export interface DeviceBindingKey {
  readonly keyId: string;
  readonly orgId: string;
  readonly deviceLimit: number;
}

export interface DeviceBinding {
  readonly deviceId: string;
  /** e.g. X-Service-Device-Binding-Token on a first binding; sent back on the response. */
  readonly responseHeaders?: Record<string, string>;
}

/** Binds the calling device to a capped key (device_limit > 0), on every request made with that key. */
export interface DeviceBinder {
  bind(key: DeviceBindingKey, request: RequestFacts): Promise<DeviceBinding>;
}

/**
 * How the real binder is supplied: the devices/licensing module exports DEVICE_BINDER from a @Global() module
 * imported by AppModule. CredentialResolver injects DEVICE_BINDER as @Optional() and falls back to
 * FailClosedDeviceBinder only when no module provides it — AccessModule deliberately does not provide the token
 * itself, because a local provider would shadow the global one.
 */
export const DEVICE_BINDER = Symbol('DEVICE_BINDER');

/** Until device binding exists, a capped key is refused rather than let through unbound. */
@Injectable()
export class FailClosedDeviceBinder implements DeviceBinder {
  bind(): Promise<DeviceBinding> {
    return Promise.reject(new AppError('device_binding_required', 'Device binding is not available for capped keys.'));
  }
}
