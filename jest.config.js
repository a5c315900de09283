'use strict';
const base = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
    'node_modules/.+\\.(m?js)$': '<rootDir>/test/support/esm-transformer.js',
  },
  transformIgnorePatterns: [],
  setupFiles: ['reflect-metadata'],
  // Instrumenting these would break them: each ships a function to its thread or process as source text, where the
  // instrumentation's counters do not exist (they move to entry files of their own in their rewrites).
  coveragePathIgnorePatterns: ['/node_modules/', 'dataset-write-worker\\.ts$', 'sql-report-process\\.ts$'],
  // Worker threads start from compiled entry files: under ts-jest those are the build's (test/support/compiled-entry.ts).
  moduleNameMapper: {
    '^(\\.{1,2}/)+common/runtime/compiled-entry$': '<rootDir>/test/support/compiled-entry.ts',
  },
};

module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...base, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.spec.ts'] },
  ],
  globalSetup: '<rootDir>/test/support/build-before-tests.js',
  // With --coverage (npm run test:coverage): the daemon's sources, the summary on the terminal, the report in coverage/.
  collectCoverageFrom: ['<rootDir>/src/**/*.ts'],
  coverageReporters: ['text-summary', 'json-summary'],
  testTimeout: 120000,
  testSequencer: '<rootDir>/test/support/longest-first-sequencer.js',
};
