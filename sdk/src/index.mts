// The ES module entry: the CommonJS build's named exports, and the client class as the default export.
import sdk from './index.js';

export * from './index.js';
export default sdk.DecisionService;
