export { AppStateRepository } from './app-state.repository';
export { DatabaseModule } from './database.module';
export { describeStore, openDatabase, storeLocationOf } from './orm';
export type { StoreLocation, StoreOrm } from './orm';
export { claimRows, skippingLockedRows, WorkLeases } from './work-leases';
export { serializeTransactionsOn } from './transaction-lock';
export { sharedWrite } from './shared-writes';
export type { Lease } from './work-leases';
