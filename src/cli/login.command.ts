import { Command } from 'commander';
import { readCliSettings, writeCliSettings } from './client/cli-config';
import { keyFromEnvironment, normalizeBaseURL, resolveBaseURL } from './client/connection';
import { CredentialStore } from './client/credential-store';
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

interface LoginOptions extends FormatOptions {
  readonly baseUrl?: string;
}

/** The key login uses, and whether it goes into the credential store (never when it came from the environment). */
async function keyForLogin(argument: string | undefined): Promise<{ key: string; store: boolean }> {
  const fromEnv = keyFromEnvironment();
  if (argument === undefined && fromEnv) {
    process.stderr.write(`decisionctl: using the key from ${fromEnv.name}; it is not stored\n`);
    return { key: checkKeyShape(fromEnv.value, fromEnv.name, ExitCode.configuration), store: false };
  }
  return { key: (await readKeyInput(argument)).key, store: true };
}

/**
 * Registers this machine and keeps its verified license. A key to be stored goes into the credential store first,
 * so without a secure store nothing is registered; if registering fails, the store is put back as it was.
 */
async function login(argument: string | undefined, options: LoginOptions): Promise<void> {
  const settings = readCliSettings();
  const baseURL =
    options.baseUrl === undefined
      ? resolveBaseURL().baseURL
      : normalizeBaseURL(options.baseUrl, 'the --base-url option');
  const { key, store: storeKey } = await keyForLogin(argument);
  const store = new CredentialStore();
  const previous = storeKey ? await store.get(baseURL) : undefined;
  if (storeKey) await store.set(baseURL, key);
  let registration;
  try {
    const client = new DecisionService({ apiKey: key, baseURL });
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
    }
    throw error;
  }
  if (storeKey || options.baseUrl !== undefined) {
    writeCliSettings({
      ...settings,
      ...(options.baseUrl === undefined ? {} : { base_url: baseURL }),
      ...(storeKey ? { key_stored_by: 'login' as const } : {}),
    });
  }
  process.stderr.write(
    `decisionctl: logged in to ${baseURL}; device ${String(registration.device_id)} registered` +
      `${storeKey ? ', key stored in the credential store' : ''}\n`,
  );
  printResult(options.format, registration);
}

/** Removes the stored license, and the stored key when `login` put it there (a key from set-key stays). */
async function logout(options: FormatOptions): Promise<void> {
  const { baseURL } = resolveBaseURL();
  const settings = readCliSettings();
  const licenseRemoved = removeLicense(baseURL);
  let keyRemoved = false;
  if (settings.key_stored_by === 'login') {
    keyRemoved = await new CredentialStore().delete(baseURL);
    writeCliSettings({ ...settings, key_stored_by: undefined });
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
