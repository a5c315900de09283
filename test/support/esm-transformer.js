// Jest on Node 20 cannot require() ES modules (Nest 12, hyparquet); rewrite such files to CommonJS.
'use strict';
const crypto = require('node:crypto');
const ts = require('typescript');

const ESM_SYNTAX = /^\s*(import\s*[\w{*'"]|export\s)|import\.meta/m;

module.exports = {
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update('esm-v1\0').update(filename).update('\0').update(source).digest('hex');
  },
  process(source, filename) {
    if (!ESM_SYNTAX.test(source)) return { code: source };
    const patched = source.replace(/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href");
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
