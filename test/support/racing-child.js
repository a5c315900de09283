// Runs in each racing process (racing-processes.ts): announces it is ready, blocks until the parent's go byte, then
// calls the export and prints its JSON result. The go byte reaches every child at once, so their calls overlap
// instead of running one after another.
'use strict';
const fs = require('node:fs');
const [modulePath, exportName, argument] = process.argv.slice(2);
const fn = require(modulePath)[exportName];
process.stdout.write('ready\n');
fs.readSync(0, Buffer.alloc(1));
let outcome;
try {
  outcome = { ok: true, value: fn(argument) };
} catch (error) {
  outcome = { ok: false, error: String(error) };
}
process.stdout.write(JSON.stringify(outcome) + '\n');
