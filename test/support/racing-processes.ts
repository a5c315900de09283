import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import { compiledEntry } from './compiled-entry';

const CHILD = join(__dirname, 'racing-child.js');

export type RaceOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** The build's file of a source under src/ (jest's global setup builds dist/ first). */
function built(sourceFile: string): string {
  return compiledEntry(dirname(sourceFile), basename(sourceFile, '.ts'));
}

function waitForReady(child: ReturnType<typeof spawn>, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', () => {
      if (output().startsWith('ready\n')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`a racing process exited (${String(code)}) before it was ready`)),
    );
  });
}

/** Calls `exportName(argument)` of the built `sourceFile` (a path under src/) in `count` processes at the same moment. */
export async function raceInProcesses(
  sourceFile: string,
  exportName: string,
  argument: string,
  count: number,
): Promise<RaceOutcome[]> {
  const modulePath = built(sourceFile);
  const racers = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, [CHILD, modulePath, exportName, argument], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (text += chunk));
    return { child, output: () => text };
  });
  await Promise.all(racers.map(({ child, output }) => waitForReady(child, output)));
  const exits = racers.map(({ child }) => once(child, 'exit'));
  for (const { child } of racers) child.stdin.end('g');
  await Promise.all(exits);
  return racers.map(({ output }) => JSON.parse(output().slice('ready\n'.length)) as RaceOutcome);
}
