'use strict';
const { join } = require('node:path');
const root = join(__dirname, '..', '..');
const { projects, testTimeout, testSequencer } = require(join(root, 'jest.config.js'));
const { displayName: _unit, testMatch: _match, ...base } = projects[0];

/** The reliability suite (docs/reliability.md): `npm run test:reliability`, kept out of `npm test`. */
module.exports = {
  rootDir: root,
  projects: [
    {
      ...base,
      rootDir: root,
      displayName: 'reliability',
      testMatch: ['<rootDir>/test/reliability/**/*.spec.ts'],
    },
  ],
  testTimeout: Math.max(testTimeout, 600000),
  testSequencer,
};
