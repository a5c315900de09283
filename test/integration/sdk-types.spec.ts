import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/daemon-process';

const COMMITTED = join(REPO_ROOT, 'sdk', 'src', 'generated', 'openapi.ts');

describe("the SDK's generated types", () => {
  it('are what sdk/scripts/generate-types.sh makes from contract/openapi.json (run `npm run -s sdk:types`)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sdk-types-'));
    try {
      const fresh = join(scratch, 'openapi.ts');
      const run = spawnSync('bash', ['sdk/scripts/generate-types.sh', fresh], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`generate-types.sh failed:\n${run.stderr}`);
      const stale = readFileSync(COMMITTED, 'utf8') !== readFileSync(fresh, 'utf8');
      expect(stale ? 'sdk/src/generated/openapi.ts is stale: run `npm run -s sdk:types`' : 'fresh').toBe(
        'fresh',
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
