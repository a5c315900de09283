import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';

/**
 * Runs in each child: announces it is ready, blocks until the parent's go byte, then calls the export and prints its
 * JSON result. The go byte reaches every child at once, so their calls overlap instead of running one after another.
 */
const CHILD = `
const fs = require('node:fs');
const [modulePath, exportName, argument] = process.argv.slice(1);
const fn = require(modulePath)[exportName];
process.stdout.write('ready\\n');
fs.readSync(0, Buffer.alloc(1));
let outcome;
try { outcome = { ok: true, value: fn(argument) }; } catch (error) { outcome = { ok: false, error: String(error) }; }
process.stdout.write(JSON.stringify(outcome) + '\\n');
`;

export type RaceOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** The TypeScript file as one CommonJS file; it may import only Node's built-in modules. */
function transpiled(sourceFile: string): string {
  const source = readFileSync(sourceFile, 'utf8');
  const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 };
  const file = join(mkdtempSync(join(tmpdir(), 'ds-race-')), 'module.js');
  writeFileSync(file, ts.transpileModule(source, { compilerOptions: options }).outputText);
  return file;
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

/** Calls `exportName(argument)` of the TypeScript file `sourceFile` in `count` processes at the same moment. */
export async function raceInProcesses(
  sourceFile: string,
  exportName: string,
  argument: string,
  count: number,
): Promise<RaceOutcome[]> {
  const modulePath = transpiled(sourceFile);
  const racers = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['-e', CHILD, modulePath, exportName, argument], {
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
