import { ConnectorError } from '../../../src/modules/connectors/connector-error';
import { originOf, requireLinkOnOrigin } from '../../../src/modules/connectors/drivers/rest-origin';

describe('REST origin', () => {
  it('is scheme, host and port, with default ports folded in', () => {
    expect(originOf('https://api.example.com:443/v1/items?page=2')).toBe('https://api.example.com');
    expect(originOf('http://api.example.com:8080/x')).toBe('http://api.example.com:8080');
    expect(originOf('HTTPS://API.Example.com/x')).toBe('https://api.example.com');
  });

  it('follows a link on the same origin', () => {
    const link = 'https://api.example.com/v1/items?page=2';
    expect(requireLinkOnOrigin(link, 'https://api.example.com')).toBe(link);
  });

  it.each([
    ['a downgrade to http on the same host', 'http://api.example.com/v1/items?page=2'],
    ['another port', 'https://api.example.com:8443/v1/items'],
    ['another host', 'https://evil.example.net/v1/items'],
    ['a subdomain', 'https://eu.api.example.com/v1/items'],
    ['credentials in the authority', 'https://api.example.com@evil.example.net/v1/items'],
  ])('refuses %s with a pagination_error naming the other origin', (_name, link) => {
    let caught: unknown;
    try {
      requireLinkOnOrigin(link, 'https://api.example.com');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConnectorError);
    expect((caught as ConnectorError).errorType).toBe('pagination_error');
    expect((caught as ConnectorError).message).toContain(`points to ${new URL(link).origin},`);
  });
});
