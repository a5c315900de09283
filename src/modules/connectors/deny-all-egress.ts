import { CheckedDestination, EgressBlockedError, EgressGuard } from '../egress/egress.types';

/** Used only when no egress module is loaded: nothing leaves the appliance (the policy's default). */
export const DENY_ALL_EGRESS: EgressGuard = {
  checkDestination: (host: string, port: number): Promise<CheckedDestination> =>
    Promise.reject(new EgressBlockedError(host, port, 'no_policy: no egress module is loaded')),
  connect: (host: string, port: number): Promise<CheckedDestination> =>
    Promise.reject(new EgressBlockedError(host, port, 'no_policy: no egress module is loaded')),
  fetch: (url: string | URL): Promise<Response> => {
    const target = new URL(url);
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    return Promise.reject(
      new EgressBlockedError(target.hostname, port, 'no_policy: no egress module is loaded'),
    );
  },
};
