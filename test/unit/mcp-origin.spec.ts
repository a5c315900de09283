import { AppError } from '../../src/common/errors';
import { checkOrigin } from '../../src/modules/mcp/origin-check';
import { filterModules } from '../../src/modules/runtime-library/runtime-library.service';

function refused(
  origin: string,
  host: string,
  listen: { host: string; publicBaseUrl?: string },
): string | undefined {
  try {
    checkOrigin(origin, host, listen);
    return undefined;
  } catch (error) {
    return (error as AppError).code;
  }
}

describe('checkOrigin', () => {
  const loopback = { host: '127.0.0.1' };

  it('allows an absent Origin and the origin the request was sent to', () => {
    expect(() => checkOrigin(undefined, '127.0.0.1:8080', loopback)).not.toThrow();
    expect(refused('http://127.0.0.1:8080', '127.0.0.1:8080', loopback)).toBeUndefined();
    expect(refused('https://dsvc.corp:8443', 'dsvc.corp:8443', { host: '0.0.0.0' })).toBeUndefined();
  });

  it('allows another loopback name for the same port only when listening on loopback', () => {
    expect(refused('http://localhost:8080', '127.0.0.1:8080', loopback)).toBeUndefined();
    expect(refused('http://[::1]:8080', '127.0.0.1:8080', loopback)).toBeUndefined();
    expect(refused('http://localhost:3000', '127.0.0.1:8080', loopback)).toBe('origin_not_allowed');
    expect(refused('http://localhost:8080', '10.0.0.5:8080', { host: '0.0.0.0' })).toBe('origin_not_allowed');
  });

  it('allows the configured public base URL and refuses everything else', () => {
    const listen = { host: '0.0.0.0', publicBaseUrl: 'https://decisions.example.com/' };
    expect(refused('https://decisions.example.com', '10.0.0.5:8080', listen)).toBeUndefined();
    expect(refused('https://evil.example', '10.0.0.5:8080', listen)).toBe('origin_not_allowed');
    expect(refused('null', '10.0.0.5:8080', listen)).toBe('origin_not_allowed');
  });
});

describe('filterModules', () => {
  const modules = [
    { name: 'stats', engine: 'native', functions: ['mean', 'median', 'percentile'] },
    { name: 'finance', engine: 'native', functions: ['npv', 'irr', 'pmt', 'fv'] },
  ];

  it('keeps a whole module whose name matches and only the matching functions otherwise', () => {
    expect(filterModules(modules, 'fin')).toEqual([modules[1]]);
    expect(filterModules(modules, 'me')).toEqual([{ ...modules[0], functions: ['mean', 'median'] }]);
    expect(filterModules(modules, 'stats perc')).toEqual([{ ...modules[0], functions: ['percentile'] }]);
    expect(filterModules(modules, '  ')).toEqual(modules);
    expect(filterModules(modules, 'zzz')).toEqual([]);
  });
});
