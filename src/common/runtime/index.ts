export { MINIMUM_NODE_MAJOR, UNSUPPORTED_RUNTIME_EXIT_CODE, unsupportedRuntimeReason } from './node-runtime';
