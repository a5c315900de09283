export { AppStateRepository } from './app-state.repository';
export { DatabaseModule } from './database.module';
export { openDatabase } from './orm';
