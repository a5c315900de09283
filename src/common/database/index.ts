export { AppStateRepository } from './app-state.repository';
export { DatabaseModule } from './database.module';
export { openDatabase, ormOptions, SQLITE_BUSY_TIMEOUT_MS } from './orm';
