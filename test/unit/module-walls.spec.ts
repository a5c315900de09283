import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

// The same blocks eslint.config.mjs spreads; linted here alone so a deliberate crossing needs no type information.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const walls = require('../../eslint/module-walls.cjs') as {
  LAYERS: readonly { name: string; modules: readonly string[] }[];
  moduleWalls(): object[];
};

const root = join(__dirname, '..', '..');
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    ...walls.moduleWalls(),
  ],
});

/** The wall messages ESLint gives for `code` as if it stood at `file` (relative to the repository root). */
async function crossings(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.map((m) => m.message);
}

describe('module walls (eslint/module-walls.cjs)', () => {
  it('refuses a module reaching into another module’s internal file', async () => {
    expect(
      await crossings(
        'src/modules/query/new-thing.ts',
        "import { ColumnRole } from '../datasets/column-profile';\n",
      ),
    ).toEqual([expect.stringContaining('query may use another module only through its')]);
  });

  it('counts a type-only import and a re-export the same as a value import', async () => {
    const code =
      "import type { EgressDecisionRepository } from '../egress/egress-decision.repository';\n" +
      "export { parseIp } from '../egress/ip-address';\n";
    expect(await crossings('src/modules/privacy/new-thing.ts', code)).toHaveLength(2);
  });

  it('applies from a file in a sub-folder of a module', async () => {
    expect(
      await crossings(
        'src/modules/connectors/drivers/new-thing.ts',
        "import { x } from '../../egress/ip-address';\n",
      ),
    ).toEqual([expect.stringContaining('connectors may use another module only through')]);
  });

  it('refuses an import of a higher layer, even through its public files', async () => {
    expect(
      await crossings(
        'src/modules/egress/new-thing.ts',
        "import { HealthModule } from '../health/health.module';\n",
      ),
    ).toEqual([expect.stringContaining('egress (infrastructure) may not import a module of a higher layer')]);
    expect(
      await crossings(
        'src/modules/licensing/new-thing.ts',
        "import { X } from '../accounts/accounts.service';\n",
      ),
    ).toHaveLength(1);
  });

  it('refuses a path that climbs to src/ and comes back down through modules/', async () => {
    expect(
      await crossings(
        'src/modules/query/new-thing.ts',
        "import { X } from '../../modules/datasets/value-kinds';\n",
      ),
    ).toEqual([expect.stringContaining('not through src/modules/')]);
  });

  it('refuses an import of the application root or a CLI from a module or from src/common', async () => {
    expect(
      await crossings('src/modules/contract/new-thing.ts', "import { AppModule } from '../../app.module';\n"),
    ).toEqual([expect.stringContaining('The application root and the CLIs stand above every module')]);
    expect(
      await crossings(
        'src/modules/connectors/drivers/new-thing.ts',
        "import { run } from '../../../cli/openapi-document/openapi-document';\n",
      ),
    ).toHaveLength(1);
    expect(
      await crossings('src/common/http/new-thing.ts', "import { createApp } from '../../app.factory';\n"),
    ).toHaveLength(1);
  });

  it('keeps src/common free of module imports', async () => {
    expect(
      await crossings(
        'src/common/auth/new-thing.ts',
        "import { X } from '../../modules/access/access.types';\n",
      ),
    ).toEqual([expect.stringContaining('src/common imports no module.')]);
  });

  it('lets a module use its own files, common, and the public files of its layer and below', async () => {
    const code = [
      "import { Role } from '../../common/auth/principal';",
      "import { DatasetsService } from '../datasets/datasets.service';",
      "import { Row } from '../datasets/datasets.types';",
      "import { EgressModule } from '../egress/egress.module';",
      "import { compileQuery } from './query-compiler';",
      '',
    ].join('\n');
    expect(await crossings('src/modules/query/new-thing.ts', code)).toEqual([]);
  });

  it('places every module folder in exactly one layer', () => {
    const folders = readdirSync(join(root, 'src', 'modules')).sort();
    const placed = walls.LAYERS.flatMap((layer) => layer.modules);
    expect([...placed].sort()).toEqual(folders);
  });
});
