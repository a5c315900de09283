export { MINIMUM_NODE_MAJOR, unsupportedRuntimeReason } from './node-runtime';
