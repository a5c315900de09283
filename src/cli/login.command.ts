import { Command } from 'commander';
import { readCliSettings, writeCliSettings } from './client/cli-config';
import { keyFromEnvironment, normalizeBaseURL, resolveBaseURL } from './client/connection';
import { CredentialStore, NoSecureCredentialStore } from './client/credential-store';
import {
  removeLicense,
  type StoredLicense,
  storeLicense,
  verifyDeviceLicense,
} from './client/device-license';
import { ExitCode } from './client/exit-codes';
import { checkKeyShape, readKeyInput } from './client/key-input';
import { type FormatOptions, printResult, withFormat } from './client/output';
import { DecisionService } from './client/sdk';
import { sdkTransport } from './client/transport-trust';

interface LoginOptions extends FormatOptions {
  readonly baseUrl?: string;
}

/** SERVICE_API_KEY is never stored. */
async function keyForLogin(
  argument: string | undefined,
  store: CredentialStore,
  baseURL: string,
): Promise<{ key: string; store: boolean }> {
  const fromEnv = keyFromEnvironment();
  if (argument === undefined && fromEnv) {
    process.stderr.write(`decisionctl: using the key from ${fromEnv.name}; it is not stored\n`);
    return { key: checkKeyShape(fromEnv.value, fromEnv.name, ExitCode.configuration), store: false };
  }
  if (argument === undefined) {
    const stored = await store.get(baseURL).catch((error: unknown) => {
      if (error instanceof NoSecureCredentialStore) return undefined;
      throw error;
    });
    if (stored !== undefined) {
      process.stderr.write('decisionctl: using the key stored in the credential store\n');
      return { key: stored, store: false };
    }
  }
  return { key: (await readKeyInput(argument)).key, store: true };
}

/**
 * The key is stored before registering, so without a secure store nothing is registered; a failed registration puts the
 * store back.
 */
async function login(argument: string | undefined, options: LoginOptions): Promise<void> {
  const settings = readCliSettings();
  const baseURL =
    options.baseUrl === undefined
      ? resolveBaseURL().baseURL
      : normalizeBaseURL(options.baseUrl, 'the --base-url option');
  const store = new CredentialStore();
  const { key, store: storeKey } = await keyForLogin(argument, store, baseURL);
  const previous = storeKey ? await store.get(baseURL) : undefined;
  // A key from `config set-key` is kept aside, for logout to put back (docs/cli.md: set-key keys stay).
  const keepSetKey =
    storeKey && previous !== undefined && previous !== key && settings.key_stored_by === 'set-key';
  if (keepSetKey) await store.set(CredentialStore.keptSetKeyAccount(baseURL), previous);
  if (storeKey) await store.set(baseURL, key);
  let registration;
  try {
    const client = new DecisionService({ apiKey: key, baseURL, ...sdkTransport() });
    registration = await client.devices.register();
    const licenseKey = await client.devices.licenseKey();
    const license: StoredLicense = {
      registration_id: String(registration.registration_id),
      device_id: String(registration.device_id),
      license_token: String(registration.license_token),
      expires_at: String(registration.expires_at),
      kid: String(licenseKey.kid),
      public_key_pem: String(licenseKey.public_key_pem),
    };
    verifyDeviceLicense(license);
    storeLicense(baseURL, license);
  } catch (error) {
    if (storeKey) {
      if (previous === undefined) await store.delete(baseURL);
      else await store.set(baseURL, previous);
      if (keepSetKey) await store.delete(CredentialStore.keptSetKeyAccount(baseURL));
    }
    throw error;
  }
  if (storeKey || options.baseUrl !== undefined) {
    writeCliSettings({
      ...settings,
      ...(options.baseUrl === undefined ? {} : { base_url: baseURL }),
      ...(storeKey && previous !== key
        ? { key_stored_by: 'login' as const, set_key_kept: keepSetKey || settings.set_key_kept }
        : {}),
    });
  }
  process.stderr.write(
    `decisionctl: logged in to ${baseURL}; device ${String(registration.device_id)} registered` +
      `${storeKey ? ', key stored in the credential store' : ''}\n`,
  );
  printResult(options.format, registration);
}

async function logout(options: FormatOptions): Promise<void> {
  const { baseURL } = resolveBaseURL();
  const settings = readCliSettings();
  const licenseRemoved = removeLicense(baseURL);
  let keyRemoved = false;
  if (settings.key_stored_by === 'login') {
    const store = new CredentialStore();
    const kept = settings.set_key_kept
      ? await store.get(CredentialStore.keptSetKeyAccount(baseURL))
      : undefined;
    if (kept === undefined) keyRemoved = await store.delete(baseURL);
    else {
      await store.set(baseURL, kept);
      await store.delete(CredentialStore.keptSetKeyAccount(baseURL));
      keyRemoved = true;
    }
    writeCliSettings({
      ...settings,
      key_stored_by: kept === undefined ? undefined : 'set-key',
      set_key_kept: undefined,
    });
  }
  printResult(options.format, {
    base_url: baseURL,
    license_removed: licenseRemoved,
    key_removed: keyRemoved,
  });
}

export function registerLoginCommands(program: Command): void {
  withFormat(
    program
      .command('login')
      .description(
        'register this machine under the key (POST /v1/device/register), verify and keep its signed device ' +
          'license; a key given here is stored in the credential store (without one: exit 78, nothing registered)',
      )
      .argument(
        '[key]',
        'the API key; - reads standard input; nothing uses SERVICE_API_KEY (not stored) or prompts',
      )
      .option('--base-url <url>', 'the service root, saved in the config file'),
  ).action(login);
  withFormat(
    program.command('logout').description('remove the stored device license, and the key if login stored it'),
  ).action(logout);
}
