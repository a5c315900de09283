import { Command } from 'commander';
import { cliConfigPath, readCliSettings, writeCliSettings } from './client/cli-config';
import { keyFromEnvironment, normalizeBaseURL, resolveBaseURL } from './client/connection';
import { CredentialStore, NoSecureCredentialStore } from './client/credential-store';
import { readKeyInput } from './client/key-input';
import { type FormatOptions, printResult, withFormat } from './client/output';

export function registerConfigCommands(program: Command): void {
  const config = program
    .command('config')
    .description('store the API key in the credential store, and show where the CLI finds its settings');

  config
    .command('set-key')
    .description(
      'store an API key in the operating system credential store (no device is registered); without a secure ' +
        'store this fails (exit 78) and nothing is stored',
    )
    .argument('[key]', 'the API key; - or nothing reads it from standard input (or prompts on a terminal)')
    .argument('[base_url]', 'the service root to use from now on, saved in the config file')
    .action(async (keyArgument: string | undefined, baseUrlArgument: string | undefined) => {
      const settings = readCliSettings();
      const baseURL =
        baseUrlArgument === undefined
          ? resolveBaseURL().baseURL
          : normalizeBaseURL(baseUrlArgument, 'the base_url argument');
      const { key } = await readKeyInput(keyArgument);
      const store = new CredentialStore();
      await store.set(baseURL, key);
      // The new key replaces a set-key key that a login had kept aside, too.
      if (settings.set_key_kept) await store.delete(CredentialStore.keptSetKeyAccount(baseURL));
      writeCliSettings({
        ...settings,
        ...(baseUrlArgument === undefined ? {} : { base_url: baseURL }),
        key_stored_by: 'set-key',
        set_key_kept: undefined,
      });
      process.stderr.write(
        `decisionctl: stored the key ${key.slice(0, 12)}… for ${baseURL} in the credential store\n`,
      );
      if (keyFromEnvironment())
        process.stderr.write('decisionctl: note: SERVICE_API_KEY is set and wins over the stored key\n');
    });

  withFormat(
    config.command('show').description('the base URL and where the key comes from (never the key itself)'),
  ).action(async (options: FormatOptions) => {
    const { baseURL, source } = resolveBaseURL();
    const fromEnv = keyFromEnvironment();
    // Showing the settings needs no secure store: without one, that is what the key line says.
    let stored: string | undefined;
    let noStore = false;
    if (!fromEnv) {
      try {
        stored = await new CredentialStore().get(baseURL);
      } catch (error) {
        if (!(error instanceof NoSecureCredentialStore)) throw error;
        noStore = true;
      }
    }
    printResult(options.format, {
      config_file: cliConfigPath(),
      base_url: baseURL,
      base_url_from: source,
      key_from: fromEnv
        ? fromEnv.name
        : stored
          ? 'credential store'
          : noStore
            ? 'none (no secure credential store)'
            : 'none',
      key_prefix: (fromEnv?.value ?? stored)?.slice(0, 12) ?? null,
      key_stored_by: readCliSettings().key_stored_by ?? null,
    });
  });
}
