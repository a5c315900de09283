import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ComposedMail, MailTransport } from './mail.types';

/** Mode 0600, since the files carry single-use tokens; renamed into place, so a reader never sees half a message. */
export class OutboxMailTransport implements MailTransport {
  constructor(private readonly dir: string) {}

  async deliver(mail: ComposedMail): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(6).toString('hex')}.eml`;
    const temporary = join(this.dir, `.${name}.tmp`);
    await writeFile(temporary, mail.source, { mode: 0o600, flag: 'wx' });
    await rename(temporary, join(this.dir, name));
  }
}
