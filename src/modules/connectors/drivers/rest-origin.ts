import { ConnectorError } from '../connector-error';

/**
 * Scheme, host and port of a URL (`https://h` and `https://h:443` are one origin; `http://h` is another). The
 * configured headers of a REST connector carry its credentials, so they go to this origin and nowhere else.
 */
export function originOf(url: string): string {
  return new URL(url).origin;
}

export function requireLinkOnOrigin(link: string, origin: string): string {
  const target = originOf(link);
  if (target !== origin) {
    throw new ConnectorError(
      'pagination_error',
      `The next page link points to ${target}, outside the connector's origin ${origin}; paging stops so the configured headers are not sent there.`,
    );
  }
  return link;
}

/** A redirect is followed only on the configured origin: the guard drops `Authorization`, not an API-key header. */
export function requireRedirectOnOrigin(
  status: number,
  from: string,
  location: string,
  origin: string,
): string {
  let target: string;
  try {
    target = new URL(location, from).toString();
  } catch {
    throw new ConnectorError('remote_error', `HTTP ${status} from ${from} redirects to an invalid location.`);
  }
  if (originOf(target) !== origin) {
    throw new ConnectorError(
      'remote_error',
      `HTTP ${status} from ${from} redirects to ${originOf(target)}, outside the connector's origin ${origin}; the request is not repeated there with the configured headers. Set the URL to the final address.`,
    );
  }
  return target;
}
