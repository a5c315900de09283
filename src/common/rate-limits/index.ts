export { WindowCounters } from './window-counters';
export type { WindowCounter } from './window-counter';
