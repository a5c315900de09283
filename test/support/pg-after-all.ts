import { dropProcessDatabases } from './daemon-process';

/** The PostgreSQL run (test/jest.pg.config.js): the databases the file's daemon processes ran on go with it. */
afterAll(() => dropProcessDatabases());
