import { isPlainObject } from './formats/records';

export const MASK = '********';

const SECRET_FIELDS = new Set([
  'password',
  'api_key',
  'token',
  'aws_secret_access_key',
  'secret_access_key',
  'aws_session_token',
  'session_token',
  'service_account_json',
  'private_key',
  'access_token',
  'client_secret',
]);
/** Names that look secret in open configs (neo4j, redis...) and in REST headers. */
const SECRET_NAME = /pass|secret|token|api[-_]?key|credential|private|authorization|cookie|signature|sas/i;
/** Fields whose text embeds a secret: DSNs (user:password@), Azure connection strings, SAS URLs. */
const EMBEDDED_FIELDS = new Set([
  'connection_string',
  'blob_url',
  'account_url',
  'url',
  'base_url',
  'endpoint_url',
]);
/** Inline file content is not a secret, but echoing megabytes in every listing is useless. */
const ELIDE_CONTENT_OVER = 4096;

export function maskEmbedded(value: string): string {
  let masked = value.replace(
    /(AccountKey|SharedAccessSignature|SharedAccessKey|Password|Pwd)=([^;]*)/gi,
    `$1=${MASK}`,
  );
  masked = masked.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@?#]*):([^@/?#]*)@/i, `$1:${MASK}@`);
  masked = masked.replace(
    /([?&](?:sig|password|token|api_key|apikey|key|access_token|X-Amz-Signature|X-Amz-Credential)=)[^&#]*/gi,
    `$1${MASK}`,
  );
  return masked;
}

function maskValue(name: string, value: unknown, open: boolean): unknown {
  if (value === undefined || value === null) return value;
  if (name === 'content' && typeof value === 'string' && value.length > ELIDE_CONTENT_OVER) {
    return `<${value.length} characters, not shown>`;
  }
  if (SECRET_FIELDS.has(name) || (open && SECRET_NAME.test(name))) return MASK;
  if (name === 'credentials' && typeof value === 'string') return value.trim().startsWith('{') ? MASK : value;
  if (typeof value === 'string' && (EMBEDDED_FIELDS.has(name) || open)) return maskEmbedded(value);
  if (name === 'headers' && isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([h, v]) => [h, SECRET_NAME.test(h) ? MASK : v]));
  }
  if (open && isPlainObject(value)) return maskConfig(value, true);
  return value;
}

export function maskConfig(config: Readonly<Record<string, unknown>>, open = false): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([name, value]) => [name, maskValue(name, value, open)]),
  );
}

/** Incoming values equal to the masked form of a stored secret are replaced by the stored one. */
export function restoreMasked(
  incoming: Readonly<Record<string, unknown>>,
  stored: Readonly<Record<string, unknown>>,
  open = false,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const previous = stored[name];
    if (previous === undefined) out[name] = value;
    else if (isPlainObject(value) && isPlainObject(previous)) {
      const masked = maskValue(name, previous, open);
      out[name] = isPlainObject(masked)
        ? Object.fromEntries(
            Object.entries(value).map(([k, v]) => [
              k,
              v === masked[k] && v !== previous[k] ? previous[k] : v,
            ]),
          )
        : value;
    } else {
      const masked = maskValue(name, previous, open);
      out[name] = typeof value === 'string' && value === masked && masked !== previous ? previous : value;
    }
  }
  return out;
}
