'use strict';
/**
 * The module walls of docs/architecture.md, as ESLint `no-restricted-imports` patterns (run by `npm run lint`).
 *
 * - `src/common/` imports no module.
 * - A module uses another only through its `*.module.ts`, `*.service.ts`, `*.types.ts` and `*.dto.ts` files at the
 *   top of its folder; everything else in a module's folder is its own.
 * - Modules stand in layers; a module imports only from its own layer or below. Type-only imports count.
 * - Neither imports the application root (`src/app.module.ts`, `src/app.factory.ts`, `src/main.ts`) or a CLI.
 *
 * The patterns see import paths as written, relative to the importing file, so one block is generated per module
 * and folder depth: from `src/modules/query/x.ts` a sibling module is `../<name>/`, from one folder deeper
 * `../../<name>/`. A path that climbs to `src/` and comes back down through `modules/` is refused outright.
 */

/** Bottom to top. A new module folder must be placed here (test/unit/module-walls.spec.ts checks it). */
const LAYERS = [
  {
    name: 'infrastructure',
    modules: [
      'egress',
      'licensing',
      'engine',
      'runtime-library',
      'mail',
      'storage-quota',
      'systemd',
      'idempotency',
    ],
  },
  { name: 'identity', modules: ['audit', 'devices', 'api-keys', 'accounts', 'access', 'provider-keys'] },
  {
    name: 'data and decisions',
    modules: [
      'connectors',
      'datasets',
      'query',
      'simulation',
      'jobs',
      'webhooks',
      'webhook-outbox',
      'privacy',
      'repohost',
      'triggers',
    ],
  },
  { name: 'faces', modules: ['mcp', 'health', 'contract'] },
];

const PUBLIC_FILE = '[^/]+\\.(?:module|service|types|dto)';
const ABOVE_MODULES = {
  regex: '^(?:\\.\\./)+(?:app\\.(?:module|factory)|main|cli)(?:/|$)',
  message:
    'The application root and the CLIs stand above every module: import them from nowhere in src/modules or src/common.',
};
const MAX_DEPTH = 4;

/** Module names are lower-case words joined by hyphens: nothing in them needs escaping in a (unicode) regex. */
function escape(name) {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`module-walls: unexpected module name ${name}`);
  return name;
}

function wallsOf(module, layerIndex, depth) {
  const up = `^(?:\\.\\./){${depth + 1}}`;
  const above = LAYERS.slice(layerIndex + 1).flatMap((layer) => layer.modules);
  const patterns = [
    {
      regex: `${up}(?!${escape(module)}/)[a-z][a-z0-9-]*/(?!${PUBLIC_FILE}$)`,
      caseSensitive: true,
      message: `${module} may use another module only through its *.module, *.service, *.types and *.dto files.`,
    },
    {
      regex: '(?:^|/)modules/',
      message: 'Reach a sibling module as ../<name>/, not through src/modules/.',
    },
    ABOVE_MODULES,
  ];
  if (above.length > 0) {
    patterns.push({
      regex: `${up}(?:${above.map(escape).join('|')})/`,
      message: `${module} (${LAYERS[layerIndex].name}) may not import a module of a higher layer; see docs/architecture.md.`,
    });
  }
  return patterns;
}

/** Flat-config blocks: one per module and folder depth, plus one for src/common. */
function moduleWalls() {
  const blocks = [
    {
      files: ['src/common/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [{ regex: '(?:^|/)modules/', message: 'src/common imports no module.' }, ABOVE_MODULES],
          },
        ],
      },
    },
  ];
  LAYERS.forEach((layer, layerIndex) => {
    for (const module of layer.modules) {
      for (let depth = 0; depth < MAX_DEPTH; depth += 1) {
        blocks.push({
          files: [`src/modules/${module}/${'*/'.repeat(depth)}*.ts`],
          rules: { 'no-restricted-imports': ['error', { patterns: wallsOf(module, layerIndex, depth) }] },
        });
      }
    }
  });
  return blocks;
}

module.exports = { LAYERS, moduleWalls };
