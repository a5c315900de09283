import { join } from 'node:path';
import { userDataDir } from './data-dir';
import { readPrivateFile, writePrivateFile } from './private-file';

/**
 * Keeps the device binding tokens the service hands out, keyed by `bindingKey(...)`.
 * Methods may return promises, so a store can sit on a keychain or a secrets service.
 */
export interface BindingStore {
  get(key: string): string | undefined | Promise<string | undefined>;
  set(key: string, token: string): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** Tokens held for the life of the process only. */
export class MemoryBindingStore implements BindingStore {
  private readonly tokens = new Map<string, string>();

  get(key: string): string | undefined {
    return this.tokens.get(key);
  }

  set(key: string, token: string): void {
    this.tokens.set(key, token);
  }

  delete(key: string): void {
    this.tokens.delete(key);
  }
}

interface BindingFile {
  readonly version: 1;
  readonly bindings: Record<string, { token: string; saved_at: string }>;
}

/** The default store: one JSON file, mode 0600, in the user's data directory (`device-bindings.json`). */
export class FileBindingStore implements BindingStore {
  readonly path: string;

  constructor(path: string = join(userDataDir(), 'device-bindings.json')) {
    this.path = path;
  }

  get(key: string): string | undefined {
    return this.read().bindings[key]?.token;
  }

  set(key: string, token: string): void {
    const file = this.read();
    this.write({
      ...file,
      bindings: { ...file.bindings, [key]: { token, saved_at: new Date().toISOString() } },
    });
  }

  delete(key: string): void {
    const file = this.read();
    if (!(key in file.bindings)) return;
    const { [key]: _removed, ...rest } = file.bindings;
    this.write({ ...file, bindings: rest });
  }

  private read(): BindingFile {
    const text = readPrivateFile(this.path);
    if (text === undefined) return { version: 1, bindings: {} };
    const parsed = JSON.parse(text) as Partial<BindingFile>;
    return { version: 1, bindings: parsed.bindings ?? {} };
  }

  private write(file: BindingFile): void {
    writePrivateFile(this.path, `${JSON.stringify(file, null, 2)}\n`);
  }
}
