// `engines.node` in package.json says the same; a test keeps them equal.
export const MINIMUM_NODE_MAJOR = 24;

/** Exit code of a start on an older runtime (EX_UNAVAILABLE): a missing prerequisite, not a bad setting. */
export const UNSUPPORTED_RUNTIME_EXIT_CODE = 69;

export function unsupportedRuntimeReason(version: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= MINIMUM_NODE_MAJOR) return null;
  return (
    `Node.js ${version} is not supported: this build needs Node.js ${MINIMUM_NODE_MAJOR} or newer. ` +
    'Run it with the runtime it ships with: /usr/lib/decision-service/node/bin/node in the package ' +
    '(/usr/bin/decisiond uses it), node_modules/.bin/node in a checkout after `npm ci` (npm scripts use it).'
  );
}
