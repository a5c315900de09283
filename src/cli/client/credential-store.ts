import type { AsyncEntry } from '@napi-rs/keyring';
import { CliFailure, ExitCode } from './exit-codes';

const SERVICE = 'decisionctl';
/** A locked keyring waits for an unlock prompt that may never come; the CLI gives up instead of hanging. */
const STORE_TIMEOUT_MS = 10_000;

/** Exit 78: there is no secure place for the key, so nothing was stored and no plaintext fallback is taken. */
export class NoSecureCredentialStore extends CliFailure {
  constructor(reason: string) {
    super(
      `no secure credential store: ${reason}. Nothing was stored. Either set SERVICE_API_KEY in the ` +
        `environment of each call instead, or start a Secret Service: log in to a desktop session, or run ` +
        `\`gnome-keyring-daemon --unlock --components=secrets\` inside a D-Bus session (dbus-run-session) ` +
        `and try again.`,
      ExitCode.configuration,
    );
  }
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}

// On Linux pinned to the Secret Service: the kernel keyring lasts until reboot and any process of the user reads it.
export class CredentialStore {
  private async call<T>(
    account: string,
    work: (entry: AsyncEntry, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    let entry: AsyncEntry;
    try {
      // Loaded on first use: the operator commands (version, egress, ...) never need the native binding.
      const keyring = await import('@napi-rs/keyring');
      entry = new keyring.AsyncEntry(SERVICE, account, { linux: { store: 'secret-service' } });
    } catch (error) {
      throw new NoSecureCredentialStore(reasonOf(error));
    }
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new NoSecureCredentialStore(
            `the credential store did not answer within ${STORE_TIMEOUT_MS / 1000} s (is it locked?)`,
          ),
        );
      }, STORE_TIMEOUT_MS);
      timer.unref();
    });
    try {
      return await Promise.race([work(entry, controller.signal), timeout]);
    } catch (error) {
      if (error instanceof CliFailure) throw error;
      throw new NoSecureCredentialStore(reasonOf(error));
    } finally {
      clearTimeout(timer);
    }
  }

  async get(baseURL: string): Promise<string | undefined> {
    const key = await this.call(baseURL, (entry, signal) => entry.getPassword(signal));
    return key ?? undefined;
  }

  async set(baseURL: string, apiKey: string): Promise<void> {
    await this.call(baseURL, (entry, signal) => entry.setPassword(apiKey, signal));
  }

  static keptSetKeyAccount(baseURL: string): string {
    return `${baseURL} (set-key, kept during login)`;
  }

  async delete(baseURL: string): Promise<boolean> {
    return this.call(baseURL, (entry, signal) => entry.deleteCredential(signal));
  }
}
