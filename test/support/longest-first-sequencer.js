'use strict';
/**
 * Jest starts the longest suites first only when its cache knows their times. CI runs on a fresh clone, whose cache
 * is empty, so jest falls back to file size: that put the trigger crash loop (195 s) 155 s into the reliability pass
 * and the SDK suite (74 s) at the end of `npm test`, each leaving a worker idle for as long. The suites below are the
 * longest of CI's last measured run (`jest --json`, docs/BENCHMARKS.md "CI time"), with their seconds: they start
 * first, longest first, and every other suite keeps jest's own order after them.
 */
const { relative, join } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..', '..');
const SECONDS = new Map([
  ['test/e2e/package.e2e.spec.ts', 526],
  ['test/reliability/triggers-crash-loop.reliability.spec.ts', 195],
  ['test/reliability/crash-consistency.reliability.spec.ts', 100],
  ['test/e2e/sdk.e2e.spec.ts', 74],
  ['test/e2e/decisionctl-commands.e2e.spec.ts', 71],
  ['test/reliability/replicas-kill.reliability.spec.ts', 59],
  ['test/reliability/http-fuzz.reliability.spec.ts', 51],
  ['test/reliability/write-faults.reliability.spec.ts', 50],
  ['test/integration/type-matrix.spec.ts', 48],
  ['test/reliability/parsers.reliability.spec.ts', 48],
  ['test/e2e/sql-report-limits.e2e.spec.ts', 45],
  ['test/e2e/triggers-execution.e2e.spec.ts', 44],
  ['test/e2e/jobs-restart.e2e.spec.ts', 39],
  ['test/integration/file-parse-limits.spec.ts', 36],
  ['test/e2e/triggers-leases.e2e.spec.ts', 35],
]);

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const seconds = (test) => SECONDS.get(relative(ROOT, test.path)) ?? 0;
    const ordered = super.sort(tests);
    const known = ordered.filter((test) => seconds(test) > 0).sort((a, b) => seconds(b) - seconds(a));
    return [...known, ...ordered.filter((test) => seconds(test) === 0)];
  }
}

module.exports = LongestFirstSequencer;
