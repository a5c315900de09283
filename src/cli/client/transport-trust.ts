import { Agent, fetch as undiciFetch } from 'undici';
import { CA_FILE_VARIABLE, FetchFunction, fetchTrusting, readCaFile } from './sdk';

/** Trust: system CAs or SERVICE_CA_FILE; `--insecure` skips it for a first contact and says so on every request. */
let insecure = false;

export function setInsecure(on: boolean): void {
  insecure = on;
}

const INSECURE_WARNING =
  "decisionctl: WARNING: --insecure: the appliance's certificate is not verified; anyone on the path can read " +
  'your API key. Trust it with SERVICE_CA_FILE instead (docs/tls.md).\n';

let insecureAgent: Agent | undefined;

function insecureFetch(): FetchFunction {
  insecureAgent ??= new Agent({ connect: { rejectUnauthorized: false } });
  const dispatcher = insecureAgent;
  return async (input, init) => {
    process.stderr.write(INSECURE_WARNING);
    return await undiciFetch(input, { ...(init as object), dispatcher });
  };
}

export function sdkTransport(): { fetch?: FetchFunction } {
  return insecure ? { fetch: insecureFetch() } : {};
}

export function cliFetch(): FetchFunction {
  if (insecure) return insecureFetch();
  const caFile = process.env[CA_FILE_VARIABLE]?.trim();
  return caFile ? fetchTrusting(readCaFile(caFile, CA_FILE_VARIABLE)) : globalThis.fetch;
}
