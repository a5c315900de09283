// Jest on Node 20 cannot require() ES modules (Nest 12, hyparquet); rewrite such files to CommonJS.
'use strict';
const crypto = require('node:crypto');
const ts = require('typescript');

const ESM_SYNTAX = /^\s*(import\s*[\w{*'"]|export\s)|import\.meta/m;
// CommonJS files of the Google SDK stack load node-fetch 3 (an ES module) with import(), which Jest's VM refuses
// without --experimental-vm-modules; in these packages import() of a literal becomes a require (the ES module is
// rewritten to CommonJS above when it is loaded).
const DYNAMIC_IMPORT_PACKAGES = /[\\/]node_modules[\\/](teeny-request|gaxios)[\\/]/;
const DYNAMIC_IMPORT = /\bimport\((['"][^'"]+['"])\)/g;

module.exports = {
  getCacheKey(source, filename) {
    return crypto
      .createHash('sha256')
      .update('esm-v3\0')
      .update(filename)
      .update('\0')
      .update(source)
      .digest('hex');
  },
  process(source, filename) {
    if (!ESM_SYNTAX.test(source)) {
      if (!DYNAMIC_IMPORT_PACKAGES.test(filename)) return { code: source };
      return { code: source.replace(DYNAMIC_IMPORT, 'Promise.resolve().then(() => require($1))') };
    }
    // A CommonJS module already has `require`: an ES module's own `const require = createRequire(...)` would
    // redeclare it.
    const patched = source
      .replace(/^const require = createRequire\(import\.meta\.url\);$/m, '')
      .replace(/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href");
    const out = ts.transpileModule(patched, {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        allowJs: true,
        esModuleInterop: true,
        sourceMap: false,
      },
    });
    return { code: out.outputText };
  },
};
