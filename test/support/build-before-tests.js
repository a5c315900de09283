// Jest's global setup: worker threads start from the build's entry files (test/support/compiled-entry.ts), so the
// build must match the sources. scripts/build.sh rebuilds only what is stale (a no-op costs well under a second).
'use strict';
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = () => {
  execFileSync('bash', [join(__dirname, '..', '..', 'scripts', 'build.sh')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
};
