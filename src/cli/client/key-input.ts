import { isWellFormedApiKey } from '../../modules/api-keys/api-key-format';
import { CliFailure, ExitCode, type ExitStatus } from './exit-codes';
import { promptsAllowed } from './terminal';

const KEY_SHAPE_HINT = '<prefix>_live_ or <prefix>_test_ followed by 43 characters';

export function checkKeyShape(key: string, source: string, exitCode: ExitStatus = ExitCode.usage): string {
  if (!isWellFormedApiKey(key)) {
    throw new CliFailure(
      `the key from ${source} does not have the shape of an API key (${KEY_SHAPE_HINT})`,
      exitCode,
    );
  }
  return key;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split('\n')[0].trim();
}

function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
    };
    const onData = (chunk: string): void => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') {
          finish();
          resolve(value.trim());
          return;
        }
        if (character === '\u0003') {
          finish();
          reject(new CliFailure('interrupted', ExitCode.interrupted));
          return;
        }
        value = character === '\u007f' || character === '\b' ? value.slice(0, -1) : value + character;
      }
    };
    process.stderr.write(question);
    stdin.setEncoding('utf8');
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** An argument is taken with a warning, since `ps` and the shell history show it. */
export async function readKeyInput(argument: string | undefined): Promise<{ key: string; source: string }> {
  if (argument !== undefined && argument !== '-') {
    process.stderr.write(
      'decisionctl: warning: a key on the command line is visible to other users in `ps` and stays in your ' +
        'shell history; pass - and send the key on standard input instead.\n',
    );
    return { key: checkKeyShape(argument.trim(), 'the argument'), source: 'the argument' };
  }
  if (!process.stdin.isTTY) {
    return { key: checkKeyShape(await readStdin(), 'standard input'), source: 'standard input' };
  }
  if (!promptsAllowed()) {
    throw new CliFailure(
      'no key given: pass it as an argument, pass - and send it on standard input, or set SERVICE_API_KEY',
      ExitCode.usage,
    );
  }
  return { key: checkKeyShape(await promptHidden('API key: '), 'the prompt'), source: 'the prompt' };
}
