export { WindowCounters } from './window-counters';
export type { Counted, WindowCounter } from './window-counter';
