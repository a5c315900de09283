export { AppStateRepository } from './app-state.repository';
export { DatabaseModule } from './database.module';
export { openDatabase, storeLocationOf } from './orm';
export type { StoreLocation, StoreOrm } from './orm';
