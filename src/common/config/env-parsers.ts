/** Small parsers for environment variables; each throws a message that the config loader prefixes with the name. */
export interface EnvParser<T> {
  parse(raw: string | undefined): T;
  readonly secret?: boolean;
}

function parser<T>(parse: (raw: string | undefined) => T, secret = false): EnvParser<T> {
  return { parse, secret };
}

export function text(fallback: string): EnvParser<string> {
  return parser((raw) => (raw === undefined || raw === '' ? fallback : raw));
}

export function optionalText(options: { secret?: boolean } = {}): EnvParser<string | undefined> {
  return parser((raw) => (raw === undefined || raw === '' ? undefined : raw), options.secret ?? false);
}

export function integer(fallback: number, bounds: { min?: number; max?: number } = {}): EnvParser<number> {
  return parser((raw) => {
    if (raw === undefined || raw === '') return fallback;
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be an integer, got "${raw}"`);
    const value = Number(raw.trim());
    if (!Number.isSafeInteger(value)) throw new Error(`must be a safe integer, got "${raw}"`);
    if (bounds.min !== undefined && value < bounds.min) throw new Error(`must be at least ${bounds.min}`);
    if (bounds.max !== undefined && value > bounds.max) throw new Error(`must be at most ${bounds.max}`);
    return value;
  });
}

export function seconds(fallback: number): EnvParser<number> {
  return parser((raw) => {
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw.trim());
    if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(value) || value <= 0) {
      throw new Error(`must be a positive number of seconds, got "${raw}"`);
    }
    return value;
  });
}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

export function flag(fallback: boolean): EnvParser<boolean> {
  return parser((raw) => {
    if (raw === undefined || raw === '') return fallback;
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    throw new Error(`must be one of 1/0/true/false/yes/no/on/off, got "${raw}"`);
  });
}

export function oneOf<const T extends string>(values: readonly T[], fallback: T): EnvParser<T> {
  return parser((raw) => {
    if (raw === undefined || raw === '') return fallback;
    if (!(values as readonly string[]).includes(raw)) {
      throw new Error(`must be one of ${values.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  });
}

export function list(): EnvParser<readonly string[]> {
  return parser((raw) =>
    Object.freeze(
      (raw ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    ),
  );
}

/** A 32-byte key given as base64; the value itself is a secret. */
export function base64Key(bytes: number): EnvParser<Buffer | undefined> {
  return parser((raw) => {
    if (raw === undefined || raw === '') return undefined;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw.trim())) throw new Error('must be base64');
    const key = Buffer.from(raw.trim(), 'base64');
    if (key.length !== bytes) throw new Error(`must decode to exactly ${bytes} bytes, got ${key.length}`);
    return key;
  }, true);
}

/** An absolute URL with one of `protocols`; `secret` keeps the value (it may carry a password) out of messages. */
function urlOf(
  protocols: readonly string[],
  expected: string,
  secret: boolean,
): EnvParser<string | undefined> {
  return parser((raw) => {
    if (raw === undefined || raw === '') return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`must be ${expected}`);
    }
    if (!protocols.includes(url.protocol)) throw new Error(`must be ${expected}`);
    return raw;
  }, secret);
}

export function smtpUrl(): EnvParser<string | undefined> {
  return urlOf(['smtp:', 'smtps:'], 'an smtp:// or smtps:// URL', true);
}

export function postgresUrl(): EnvParser<string | undefined> {
  return urlOf(['postgres:', 'postgresql:'], 'a postgres:// or postgresql:// URL', true);
}

export interface PathGrant {
  readonly orgId: string;
  readonly path: string;
}

/** `org_id:relative/path,...`: paths an organization may read besides its own (SERVICE_IMPORT_GRANTS). */
export function pathGrants(): EnvParser<readonly PathGrant[]> {
  return parser((raw) =>
    Object.freeze(
      (raw ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
        .map((item) => {
          const colon = item.indexOf(':');
          const orgId = item.slice(0, colon);
          const path = item
            .slice(colon + 1)
            .trim()
            .replace(/\/+$/, '');
          if (colon <= 0 || !/^[A-Za-z0-9_-]+$/.test(orgId)) {
            throw new Error(`"${item}" must be org_id:relative/path`);
          }
          const segments = path.split('/');
          if (
            path === '' ||
            path.startsWith('/') ||
            path.includes('\\') ||
            path.includes('\0') ||
            segments.some((segment) => segment === '' || segment === '.' || segment === '..')
          ) {
            throw new Error(`"${item}": the path must be relative, without "." or ".." segments`);
          }
          return Object.freeze({ orgId, path });
        }),
    ),
  );
}
